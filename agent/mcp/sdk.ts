// The MCP client SDK, in one place so the bundle can load it lazily
// (dist/agent-mcp.js): only a session whose policy declares servers needs it.
export { Client } from '@modelcontextprotocol/client';
export { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
