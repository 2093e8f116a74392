// Drives headless Chromium (interop/apps-host.sh): a node-side MCP client
// (TS SDK) against the Rust example over Streamable HTTP, the App under
// AppBridge in the page; exits non-zero when a step fails or times out.
import http from "node:http";
import fs from "node:fs";
import puppeteer from "puppeteer-core";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const url = process.argv[2];
if (!url) throw new Error("usage: node run.mjs http://HOST:PORT/mcp");
const client = new Client({ name: "test-host", version: "1.0.0" }, {
  capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } },
});
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const tools = (await client.listTools()).tools;
console.log("tools:", tools.map((t) => t.name), JSON.stringify(tools[0]._meta));
const tool = tools.find((t) => t.name === "show_counter");
const uri = tool._meta.ui.resourceUri;
const read = await client.readResource({ uri });
const content = read.contents[0];
console.log("resource:", content.mimeType, JSON.stringify(content._meta), content.text.length, "chars");
const result = await client.callTool({ name: "show_counter", arguments: {} });
console.log("show_counter:", JSON.stringify(result.structuredContent), result.content[0].text);

const bundle = fs.readFileSync("dist/host.js", "utf8");
const server = http.createServer((req, res) => {
  res.setHeader("content-type", "text/html");
  res.end(`<!DOCTYPE html><html><body><script>${bundle}</script></body></html>`);
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true, args: ["--no-sandbox"] });
const page = await browser.newPage();
page.on("pageerror", (e) => console.log("page error:", e.message));
await page.exposeFunction("mcpCallTool", async (params) => client.callTool(params));
await page.goto(`http://127.0.0.1:${server.address().port}/`);
await page.evaluate((args) => window.startHost(args), { html: content.text, csp: content._meta?.ui?.csp, input: {}, result });
const frame = await (await page.waitForSelector("iframe#app")).contentFrame();
const text = async (sel) => frame.$eval(sel, (e) => e.textContent);
await frame.waitForFunction(() => document.getElementById("result").textContent.trim() === "0", { timeout: 10000 });
console.log("after tool-result: #result =", await text("#result"), "| #status =", await text("#status"));
await frame.waitForFunction(() => !document.getElementById("call").disabled, { timeout: 10000 });
await frame.click("#call");
await frame.waitForFunction(() => document.getElementById("result").textContent.trim() === "1", { timeout: 10000 });
console.log("after click: #result =", await text("#result"), "| #status =", await text("#status"));
console.log("host log:", JSON.stringify(await page.evaluate(() => window.hostLog)));
await page.screenshot({ path: "app.png" });
await browser.close();
server.close();
await client.close();
console.log("OK");
