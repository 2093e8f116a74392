// A test host page: AppBridge from @modelcontextprotocol/ext-apps renders
// the App in a sandboxed iframe (opaque origin, the spec's default CSP) and
// relays tools/call to the page's exposed function (node-side MCP client).
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

window.startHost = async ({ html, csp, input, result }) => {
  const policy = [
    "default-src 'none'",
    "script-src 'self' 'unsafe-inline'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "media-src 'self' data:",
    `connect-src ${(csp && csp.connectDomains || []).join(" ") || "'none'"}`,
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'self'",
  ].join("; ");
  const doc = html.replace("<head>", `<head><meta http-equiv="Content-Security-Policy" content="${policy}">`);
  const iframe = document.createElement("iframe");
  iframe.id = "app";
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.style.width = "400px";
  iframe.style.height = "300px";
  document.body.appendChild(iframe);
  const bridge = new AppBridge(null, { name: "test-host", version: "1.0.0" }, { serverTools: {}, openLinks: {} });
  window.hostLog = [];
  bridge.oncalltool = async (params) => {
    window.hostLog.push(["tools/call", params]);
    return await window.mcpCallTool(params);
  };
  bridge.onsizechange = (size) => window.hostLog.push(["size", size]);
  bridge.oninitialized = () => {
    window.hostLog.push(["initialized"]);
    bridge.sendToolInput({ arguments: input });
    bridge.sendToolResult(result);
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = doc;
};
