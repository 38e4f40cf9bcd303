// The TypeScript SDK v1 client (`@modelcontextprotocol/sdk`, legacy era only) answering the
// servers' questions through `setRequestHandler(ElicitRequestSchema | CreateMessageRequestSchema
// | ListRootsRequestSchema, ...)`; the checks are in ./asking-common.ts.
//
//   node ts/asking-v1.ts <long_task-binary> <asking-server-binary>

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
    CallToolResultSchema,
    CreateMessageRequestSchema,
    ElicitRequestSchema,
    ErrorCode,
    ListRootsRequestSchema,
    McpError,
    type CallToolResult,
    type ClientCapabilities
} from '@modelcontextprotocol/sdk/types.js';
import { runAskingChecks, type AskingSession, type Connect } from './asking-common.ts';
import { callOutcome, errorOutcome, promptOutcome, Report, runAndExit } from './common.ts';

const [longTask, askingServer] = process.argv.slice(2);
if (longTask === undefined || askingServer === undefined) {
    console.error('usage: node ts/asking-v1.ts <long_task-binary> <asking-server-binary>');
    process.exit(2);
}
const report = new Report('typescript-sdk-v1 asking (legacy)');

const connect: Connect = async (binary, answers) => {
    const capabilities: ClientCapabilities = answers === undefined ? {} : { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } };
    const client = new Client({ name: 'mcp-rs-interop-ts-v1-asking', version: '0.0.0' }, { capabilities });
    if (answers !== undefined) {
        client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
            const params = request.params;
            const schema = 'requestedSchema' in params ? params.requestedSchema : undefined;
            const answer = answers.onElicit(String(extra.requestId), params.message, schema);
            if (answer === undefined) throw new McpError(ErrorCode.InvalidParams, `unexpected question ${JSON.stringify(params.message)}`);
            return answer;
        });
        client.setRequestHandler(CreateMessageRequestSchema, async request => {
            const { systemPrompt, maxTokens, messages } = request.params;
            const seen = messages.map(m => ({
                role: m.role,
                text: !Array.isArray(m.content) && m.content.type === 'text' ? m.content.text : undefined
            }));
            return answers.onSample(systemPrompt, maxTokens, seen);
        });
        client.setRequestHandler(ListRootsRequestSchema, async () => answers.onRoots());
    }
    const transport = new StdioClientTransport({ command: binary, args: [], stderr: 'inherit' });
    // v1 exposes the negotiated revision only by handing it to the transport after `initialize`.
    let negotiated: string | undefined;
    (transport as Transport).setProtocolVersion = (version: string) => {
        negotiated = version;
    };
    await client.connect(transport);
    const session: AskingSession = {
        era: () => ({ era: 'legacy', protocolVersion: negotiated }),
        declared: () => ({ ...capabilities }),
        losesLastProgress: true,
        reportsInputRounds: false,
        callTool: async (name, args, options) => {
            try {
                const result = await client.callTool({ name, arguments: args }, CallToolResultSchema, {
                    ...(options?.signal !== undefined && { signal: options.signal }),
                    ...(options?.onprogress !== undefined && {
                        onprogress: p => options.onprogress?.({ progress: p.progress, total: p.total, message: p.message })
                    })
                });
                return callOutcome(result as CallToolResult);
            } catch (error) {
                return errorOutcome(error);
            }
        },
        getPrompt: (name, args) => promptOutcome(() => client.getPrompt({ name, arguments: args })),
        close: () => client.close()
    };
    return session;
};

await runAndExit(
    report,
    async () => {
        await runAskingChecks(report, connect, 'legacy', longTask, askingServer);
    }
);
