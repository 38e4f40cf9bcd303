// The test host page's script (bundled by esbuild for the browser): an MCP host as the MCP
// Apps specification has it. The official TypeScript SDK client talks to the server over
// Streamable HTTP; the official host-side bridge (`AppBridge` + `PostMessageTransport` from
// `@modelcontextprotocol/ext-apps/app-bridge`) talks to the view in a sandboxed iframe and
// forwards its `tools/call` to the server through that client.
//
// `?era=legacy|auto` picks the client's negotiation (`auto` lands on 2026-07-28). Progress is
// written to `window.hostState` for the driver (`drive.mjs`) to wait on.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

const UI = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';

type HostState = {
    step: string;
    error?: string;
    era?: string;
    protocolVersion?: string;
    serverDeclaresUi?: boolean;
    tools?: string[];
    resourceUri?: string;
    mimeType?: string;
    pageMeta?: unknown;
    firstResult?: unknown;
    bridgedCalls: Array<{ name: string; arguments: unknown }>;
};

const state: HostState = { step: 'starting', bridgedCalls: [] };
(window as unknown as { hostState: HostState }).hostState = state;

function log(step: string): void {
    state.step = step;
    document.getElementById('log')!.textContent += `${step}\n`;
}

async function main(): Promise<void> {
    const era = new URLSearchParams(location.search).get('era') ?? 'legacy';
    const client = new Client(
        { name: 'mcp-apps-test-host', version: '0.0.0' },
        {
            capabilities: { extensions: { [UI]: { mimeTypes: [MIME] } } },
            ...(era === 'auto' ? { versionNegotiation: { mode: 'auto' as const } } : {})
        } as ConstructorParameters<typeof Client>[1]
    );
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)));
    state.era = client.getProtocolEra();
    state.protocolVersion = client.getNegotiatedProtocolVersion();
    const extensions = (client.getServerCapabilities() as { extensions?: Record<string, unknown> })?.extensions;
    state.serverDeclaresUi = extensions !== undefined && UI in extensions;
    log('connected');

    const { tools } = await client.listTools();
    state.tools = tools.map(tool => tool.name);
    const weather = tools.find(tool => tool.name === 'get_weather');
    const ui = (weather?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui;
    if (!weather || !ui?.resourceUri) throw new Error(`no get_weather with _meta.ui.resourceUri in ${JSON.stringify(tools)}`);
    state.resourceUri = ui.resourceUri;
    log('listed tools');

    const args = { city: 'Paris' };
    const result = await client.callTool({ name: 'get_weather', arguments: args });
    state.firstResult = result.structuredContent;
    log('called get_weather');

    const read = await client.readResource({ uri: ui.resourceUri });
    const page = read.contents[0] as { mimeType?: string; text?: string; _meta?: unknown };
    state.mimeType = page.mimeType;
    state.pageMeta = page._meta;
    if (page.mimeType !== MIME || typeof page.text !== 'string') throw new Error(`the page is not MCP App HTML: ${page.mimeType}`);
    log('read the page');

    const iframe = document.createElement('iframe');
    iframe.id = 'app';
    // Scripts only: an opaque origin, no access to this page, the server or storage.
    iframe.setAttribute('sandbox', 'allow-scripts');
    iframe.style.width = '480px';
    iframe.style.height = '320px';
    document.getElementById('frame')!.appendChild(iframe);

    const bridge = new AppBridge(client, { name: 'mcp-apps-test-host', version: '0.0.0' }, { serverTools: {}, serverResources: {} });
    bridge.oninitialized = () => {
        log('view initialized');
        void bridge.sendToolInput({ arguments: args }).then(() => bridge.sendToolResult(result as Parameters<typeof bridge.sendToolResult>[0]));
    };
    // The view's window exists once the iframe is in the document; the bridge must listen
    // before the view's script sends `ui/initialize`, so `srcdoc` is set after connecting.
    await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
    // The bridge forwards the view's `tools/call` to the server through `client` by itself;
    // this records each on the way (set after `connect`, which installs the forwarding).
    const forward = bridge.oncalltool;
    bridge.oncalltool = async (params, extra) => {
        state.bridgedCalls.push({ name: params.name, arguments: params.arguments });
        log(`the view called ${params.name}`);
        if (forward) return forward(params, extra);
        return (await client.callTool(params)) as Awaited<ReturnType<NonNullable<typeof forward>>>;
    };
    iframe.srcdoc = page.text;
    log('view loading');
}

main().catch((error: unknown) => {
    state.error = error instanceof Error ? `${error.message}\n${error.stack}` : String(error);
    log('failed');
});
