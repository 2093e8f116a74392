// DPoP at our resource server, from an independent implementation (jose):
// serves the test issuer's metadata and JWKS, starts nothing else; the
// caller starts `mcp-everything http --oauth-dpop[-nonce]` against ISSUER
// and passes its MCP URL. Mints a DPoP-bound token (cnf.jkt from jose's
// RFC 7638 thumbprint), sends proofs built by jose, and checks: a good
// proof passes (after a use_dpop_nonce round when the server asks), a
// replayed one and one for another URL are refused.
// Usage: node dpop_rs_check.mjs ISSUER_PORT MCP_URL KEY_PEM JWKS_JSON
import http from "node:http";
import { readFileSync } from "node:fs";
import { createHash, randomUUID } from "node:crypto";
import * as jose from "jose";

const [portArg, mcpUrl, keyPem, jwksFile] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${portArg}`;
const jwks = readFileSync(jwksFile, "utf8");
const server = http.createServer((req, res) => {
  const body = req.url === "/.well-known/oauth-authorization-server"
    ? JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks`, authorization_endpoint: `${issuer}/a`,
                       token_endpoint: `${issuer}/t`, response_types_supported: ["code"] })
    : req.url === "/jwks" ? jwks : null;
  res.writeHead(body ? 200 : 404, { "content-type": "application/json" });
  res.end(body ?? "{}");
});
await new Promise((ok) => server.listen(Number(portArg), "127.0.0.1", ok));

let failures = 0;
const check = (name, ok, detail) => {
  console.log(`${ok ? "PASS" : "FAIL"} ${name}${ok ? "" : ` ${detail}`}`);
  if (!ok) failures++;
};

const { publicKey, privateKey } = await jose.generateKeyPair("ES256");
const jwk = await jose.exportJWK(publicKey);
const jkt = await jose.calculateJwkThumbprint(jwk, "sha256");
const asKey = await jose.importPKCS8(readFileSync(keyPem, "utf8"), "RS256");
const token = await new jose.SignJWT({ sub: "interop", cnf: { jkt } })
  .setProtectedHeader({ alg: "RS256", kid: "key1" })
  .setIssuer(issuer).setAudience(mcpUrl).setIssuedAt().setExpirationTime("10m")
  .sign(asKey);
const ath = createHash("sha256").update(token).digest("base64url");
const proof = (htu, nonce) => new jose.SignJWT({ jti: randomUUID(), htm: "POST", htu, ath,
                                                  ...(nonce ? { nonce } : {}) })
  .setProtectedHeader({ typ: "dpop+jwt", alg: "ES256", jwk }).setIssuedAt().sign(privateKey);
const call = (dpop) => fetch(mcpUrl, {
  method: "POST",
  headers: { authorization: `DPoP ${token}`, dpop, "content-type": "application/json",
             accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28",
             "mcp-method": "tools/list" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {} } } }),
});

let first = await proof(mcpUrl);
let answer = await call(first);
let nonce;
if (answer.status === 401 && (answer.headers.get("www-authenticate") ?? "").includes("use_dpop_nonce")) {
  nonce = answer.headers.get("dpop-nonce");
  check("use_dpop_nonce carries a DPoP-Nonce", !!nonce, "no DPoP-Nonce header");
  first = await proof(mcpUrl, nonce);
  answer = await call(first);
}
check("a jose-built proof is accepted", answer.status === 200, `${answer.status} ${answer.headers.get("www-authenticate")}`);
const replay = await call(first);
check("a replayed proof is refused", replay.status === 401
  && (replay.headers.get("www-authenticate") ?? "").includes("invalid_dpop_proof"), `${replay.status}`);
const elsewhere = await call(await proof(`${mcpUrl}/elsewhere`, nonce));
check("a proof for another URL is refused", elsewhere.status === 401, `${elsewhere.status}`);
server.close();
console.log(`${3 + (nonce ? 1 : 0) - failures} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
