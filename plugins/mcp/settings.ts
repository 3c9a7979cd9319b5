import { defineSettings } from '../../core/plugin/settings.js';

/**
 * The mcp plugin's settings (`mcp.*` in the configuration, SVC_* names in `x-env`): the
 * fragment the kernel puts into the configuration schema (config/schema.json is generated from it).
 */
export interface McpSettings {
  /** name → server; a JSON string when it came from SVC_MCP_SERVERS (the plugin parses it) */
  servers: string | Record<string, unknown>;
  pin_on_first_use: boolean;
  timeout_ms: number;
  /** longest life of a relayed GET event stream; the client then comes back with Last-Event-ID */
  stream_max_seconds: number;
  /** open GET event streams per agent (per replica) */
  max_streams_per_agent: number;
  max_body_bytes: number;
  session_ttl_seconds: number;
  /** Host values /mcp/{server} answers to (`host` or `host:port`); empty: loopback, bind address, public_url */
  allowed_hosts: string[];
  /** Origin values allowed on /mcp/{server}; empty: any http(s) origin on an allowed host */
  allowed_origins: string[];
  max_tools_per_server: number;
  state_ttl_seconds: number;
}

export const mcpSettings = defineSettings<McpSettings>('mcp', {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    servers: {
      type: ['object', 'string'],
      default: {},
      'x-env': 'SVC_MCP_SERVERS',
      'x-env-raw': true,
      description:
        'MCP servers proxied at /mcp/{name}: JSON object name \u2192 {url, headers_from_env?, policy?}; policy is the server\'s tool policy {default?, rules?} (see docs/mcp.md, "Policy").',
    },
    pin_on_first_use: {
      type: 'boolean',
      default: false,
      'x-env': 'SVC_MCP_PIN_ON_FIRST_USE',
      description: 'Pin a new tool definition the first time it is listed when screening finds nothing (otherwise an operator approves it).',
    },
    timeout_ms: {
      type: 'integer',
      minimum: 100,
      maximum: 600000,
      default: 60000,
      'x-env': 'SVC_MCP_TIMEOUT_MS',
      description: 'Deadline of one relayed MCP request, streamed answer included.',
    },
    stream_max_seconds: {
      type: 'integer',
      minimum: 1,
      maximum: 86400,
      default: 300,
      'x-env': 'SVC_MCP_STREAM_MAX_SECONDS',
      description: 'Longest life of a relayed GET /mcp/{server} event stream: it then ends and the client comes back with GET and Last-Event-ID.',
    },
    max_streams_per_agent: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 16,
      'x-env': 'SVC_MCP_MAX_STREAMS_PER_AGENT',
      description: 'GET /mcp/{server} event streams one agent may hold open at once (per replica); past it 429 mcp_too_many_streams.',
    },
    max_body_bytes: {
      type: 'integer',
      minimum: 1024,
      maximum: 16777216,
      default: 1048576,
      'x-env': 'SVC_MCP_MAX_BODY_BYTES',
      description: 'Body cap of a JSON-RPC message posted to /mcp/{server}.',
    },
    session_ttl_seconds: {
      type: 'integer',
      minimum: 1,
      maximum: 31536000,
      default: 86400,
      'x-env': 'SVC_MCP_SESSION_TTL_SECONDS',
      description:
        'Lifetime of an MCP session through the proxy, from its initialize: past it a request on the session is 404 (clients initialize again) and a sweep removes its binding and listings.',
    },
    allowed_hosts: {
      type: 'array',
      items: {
        type: 'string',
        minLength: 1,
        maxLength: 300,
      },
      default: [],
      'x-env': 'SVC_MCP_ALLOWED_HOSTS',
      description:
        'Host header values /mcp/{server} answers to, each host (any port) or host:port; any other Host is 403 mcp_host_not_allowed and never forwarded. Empty: localhost, 127.0.0.1, [::1], server.host (unless 0.0.0.0/::) on server.port, and the host of server.public_url (see docs/mcp.md).',
    },
    allowed_origins: {
      type: 'array',
      items: {
        type: 'string',
        minLength: 1,
        maxLength: 300,
      },
      default: [],
      'x-env': 'SVC_MCP_ALLOWED_ORIGINS',
      description:
        'Origin header values allowed on /mcp/{server} (http(s)://host[:port]); a request without Origin (not a browser) is allowed, any other Origin is 403 mcp_origin_not_allowed and never forwarded. Empty: an http(s) origin on one of the allowed hosts.',
    },
    max_tools_per_server: {
      type: 'integer',
      minimum: 1,
      maximum: 1000000,
      default: 10000,
      'x-env': 'SVC_MCP_MAX_TOOLS_PER_SERVER',
      description:
        'Tool names recorded per MCP server (last-seen definitions, and duplicate marks, each): a new name past it is neither recorded, offered nor callable (logged, svc_mcp_state_full_total).',
    },
    state_ttl_seconds: {
      type: 'integer',
      minimum: 60,
      maximum: 315360000,
      default: 2592000,
      'x-env': 'SVC_MCP_STATE_TTL_SECONDS',
      description:
        'A tool no listing has shown for this long loses its last-seen record (refused until listed again; its pin stays), and a duplicate mark cleared this long ago is removed, by the MCP sweep.',
    },
  },
});
