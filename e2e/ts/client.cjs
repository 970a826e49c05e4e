// Drives the mmcp host with the official MCP TypeScript SDK, a client no
// one on the project wrote, so a bug shared by mcp-go's server and client
// cannot hide. Usage: node client.cjs <mmcp binary> <workspace>
// Prints one JSON line per check and exits non-zero on the first failure.
const path = require('path');
const { createRequire } = require('module');

const tools = process.env.MMCP_NODE_MODULES || path.join(__dirname, '..', '..', '.tools', 'node_modules');
const req = createRequire(path.join(tools, 'noop.js'));
const { Client } = req('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = req('@modelcontextprotocol/sdk/client/stdio.js');

const crypto = require('crypto');

const [bin, workspace, generatedHash] = process.argv.slice(2);

// Spec 002's registryHash, word for word, over the tools as received.
function registryHash(tools) {
  const canonical = tools
    .map((t) => ({ name: t.name, inputSchema: t.inputSchema }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return crypto.createHash('sha1').update(JSON.stringify(canonical)).digest('hex').slice(0, 12);
}

function envelope(res) {
  if (!res.content || res.content[0].type !== 'text') throw new Error('no text content: ' + JSON.stringify(res));
  return JSON.parse(res.content[0].text);
}

function check(name, cond, detail) {
  console.log(JSON.stringify({ check: name, ok: !!cond, detail }));
  if (!cond) throw new Error(`check failed: ${name}: ${JSON.stringify(detail)}`);
}

async function main() {
  const transport = new StdioClientTransport({ command: bin, args: ['--repo', workspace, '--headless'], stderr: 'inherit' });
  const client = new Client({ name: 'official-ts-sdk-e2e', version: '1.0.0' });
  await client.connect(transport);
  try {
    const info = client.getServerVersion();
    check('initialize', info && info.name === 'mmcp', info);
    check('instructions', (client.getInstructions() || '').includes('mm_run_steps'), client.getInstructions());

    const { tools: list } = await client.listTools();
    const names = list.map((t) => t.name);
    const own = list.filter((t) => t.name.startsWith('mm_'));
    check('registry hash (spec 002) equals the generated handles', registryHash(own) === generatedHash, { live: registryHash(own), generated: generatedHash });
    for (const n of ['mm_launch', 'mm_click', 'mm_describe_screen', 'mm_run_steps', 'mm_cleanup']) {
      check('listed ' + n, names.includes(n), names);
    }
    const click = list.find((t) => t.name === 'mm_click');
    check('raw schema', click.inputSchema.additionalProperties === false && click.inputSchema.properties.a11yRef.pattern === '^e[0-9]+$', click.inputSchema);

    const bad = envelope(await client.callTool({ name: 'mm_click', arguments: { testId: 'x', bogus: true } }));
    check('invalid input envelope', bad.ok === false && bad.error.code === 'MM_INVALID_INPUT' && bad.error.details.field === 'bogus', bad);

    const launched = envelope(await client.callTool({ name: 'mm_launch', arguments: { stateMode: 'default', flowTags: ['ts-sdk'] } }, undefined, { timeout: 120000 }));
    check('launch', launched.ok && launched.result.state.currentScreen === 'home' && launched.meta.sessionId === launched.result.sessionId, launched);

    const described = envelope(await client.callTool({ name: 'mm_describe_screen', arguments: {} }));
    const ids = described.result.testIds.items.map((i) => i.testId);
    check('describe', described.ok && ids.includes('eth-overview-send') && described.result.a11y.nodes.length > 0, ids);

    const progress = [];
    const batch = envelope(await client.callTool({
      name: 'mm_run_steps',
      arguments: {
        includeObservations: 'none',
        steps: [
          { tool: 'mm_click', args: { testId: 'global-menu-settings' } },
          { tool: 'mm_wait_for', args: { testId: 'settings-back' } },
          { tool: 'mm_get_state' },
        ],
      },
    }, undefined, { onprogress: (p) => progress.push(p), timeout: 60000 }));
    check('batch', batch.ok && batch.result.summary.succeeded === 3 && batch.result.steps[2].result.state.currentScreen === 'settings', batch.result && batch.result.summary);
    // The SDK dispatches notifications a microtask after responses, so mmcp
    // reports each step as it starts (steps done so far): every one arrives.
    check('progress per step', progress.length === 3 && progress.every((p, i) => p.progress === i && p.total === 3 && p.message.startsWith(`step ${i + 1}/3 `)), progress);

    // Cancellation: abort a batch during its first step (a long wait); the
    // host must stop that step and skip the rest, so it is free at once and
    // the second step (navigate home) never ran.
    const ac = new AbortController();
    const started = Date.now();
    setTimeout(() => ac.abort(), 700);
    let aborted = false;
    try {
      await client.callTool({
        name: 'mm_run_steps',
        arguments: { steps: [
          { tool: 'mm_wait_for', args: { testId: 'never-there', timeoutMs: 20000 } },
          { tool: 'mm_navigate', args: { screen: 'home' } },
        ] },
      }, undefined, { signal: ac.signal, timeout: 60000 });
    } catch (err) {
      aborted = true;
    }
    check('abort rejects the call', aborted);
    const after = envelope(await client.callTool({ name: 'mm_get_state', arguments: {} }));
    const elapsed = Date.now() - started;
    check('cancel stops the running step and the rest', elapsed < 5000 && after.result.state.currentScreen === 'settings', { elapsed, screen: after.result.state.currentScreen });

    const shot = await client.callTool({ name: 'mm_screenshot', arguments: { name: 'ts-sdk', includeBase64: true } });
    check('image content', shot.content.length === 2 && shot.content[1].type === 'image' && shot.content[1].mimeType === 'image/png', shot.content.map((c) => c.type));

    const cleaned = envelope(await client.callTool({ name: 'mm_cleanup', arguments: {} }));
    check('cleanup', cleaned.ok && cleaned.result.cleanedUp === true, cleaned);
  } finally {
    await client.close();
  }
}

main().then(() => console.log(JSON.stringify({ done: true })), (err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});
