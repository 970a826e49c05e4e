// Zero-setup start: the official MCP TypeScript SDK starts mmcp the way an
// MCP client does, in a directory with no workspace, with no flags and no
// MMCP_* environment. Usage: node zero_setup.cjs <mmcp binary> <cwd> <home>
// Prints one JSON line per check and exits non-zero on the first failure.
const path = require('path');
const { createRequire } = require('module');

const tools = process.env.MMCP_NODE_MODULES || path.join(__dirname, '..', '..', '.tools', 'node_modules');
const req = createRequire(path.join(tools, 'noop.js'));
const { Client } = req('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = req('@modelcontextprotocol/sdk/client/stdio.js');

const [bin, cwd, home] = process.argv.slice(2);

function envelope(res) {
  return JSON.parse(res.content[0].text);
}

function check(name, cond, detail) {
  console.log(JSON.stringify({ check: name, ok: !!cond, detail }));
  if (!cond) throw new Error(`check failed: ${name}: ${JSON.stringify(detail)}`);
}

async function main() {
  // Only PATH (where Anvil is installed) and HOME: nothing mmcp-specific.
  const transport = new StdioClientTransport({ command: bin, args: [], cwd, env: { PATH: process.env.PATH, HOME: home }, stderr: 'inherit' });
  const client = new Client({ name: 'zero-setup-e2e', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools: list } = await client.listTools();
    check('tools listed', list.some((t) => t.name === 'mm_launch') && list.some((t) => t.name === 'mm_build'), list.map((t) => t.name));

    const build = envelope(await client.callTool({ name: 'mm_build', arguments: {} }));
    check('build needs a workspace', !build.ok && build.error.code === 'MM_NO_WORKSPACE' && build.error.message.includes('--repo'), build.error);

    const launched = envelope(await client.callTool({ name: 'mm_launch', arguments: {} }, undefined, { timeout: 120000 }));
    const st = launched.ok && launched.result.state;
    check('launch', launched.ok && st.currentScreen === 'home' && st.isUnlocked && st.balance === '25 ETH', launched.ok ? st : launched.error);
    check('extension source', launched.result.extension.source.includes('embedded test wallet'), launched.result.extension);

    const cleaned = envelope(await client.callTool({ name: 'mm_cleanup', arguments: {} }));
    check('cleanup', cleaned.ok && cleaned.result.cleanedUp === true, cleaned);
  } finally {
    await client.close();
  }
  console.log(JSON.stringify({ done: true }));
}

main().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
