import { defineSettings } from '../../core/plugin/settings.js';

/**
 * The a2a plugin's settings (`a2a.*` in the configuration, SVC_* names in `x-env`): the
 * fragment the kernel puts into the configuration schema (config/schema.json is generated from it).
 */
export interface A2aSettings {
  deployment_id: string | null;
  signing_key_pem: string | null;
  trusted_agents: string | unknown[];
  blocklist: string[];
  blocked_pairs: string[];
  default_allow: boolean;
  block_on_error: boolean;
  max_payload_size_bytes: number;
  max_requests_per_minute: number;
  jwt_lifetime_seconds: number;
  enable_financial_verification: boolean;
  enable_logic_verification: boolean;
  enable_code_verification: boolean;
  sender_auth: 'on' | 'off';
  peers: Record<string, unknown> | string;
  proxy: {
    forward_statuses: Array<'forwarded' | 'heuristic_pass' | 'unverifiable'>;
    timeout_ms: number;
    connect_timeout_ms: number;
    connections: number;
    card_ttl_seconds: number;
    task_ttl_seconds: number;
    egress_allow: string[];
  };
  inbound: { target: string | null; agent_id: string | null; trusted_issuers: unknown[] | string };
}

export const a2aSettings = defineSettings<A2aSettings>('a2a', {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    deployment_id: {
      type: ['string', 'null'],
      pattern: '^[A-Za-z0-9._:-]{1,128}$',
      default: null,
      'x-env': 'SVC_A2A_DEPLOYMENT_ID',
      description: 'Deployment name in the A2A issuer DID; required when the a2a plugin is enabled.',
    },
    signing_key_pem: {
      type: ['string', 'null'],
      default: null,
      'x-env': 'SVC_A2A_SIGNING_KEY_PEM',
      description: 'Unencrypted PKCS#8 P-256 PEM that signs verdicts; never generated in-process.',
    },
    trusted_agents: {
      type: ['string', 'array'],
      default: '',
      'x-env': 'SVC_A2A_TRUSTED_AGENTS',
      'x-env-raw': true,
      description: 'Allowlist: comma-separated agent ids or a JSON array of scoped entries. Default: deny all.',
    },
    blocklist: {
      type: 'array',
      items: {
        type: 'string',
      },
      default: [],
      'x-env': 'SVC_A2A_BLOCKLIST',
      description: 'Globally blocked agent ids.',
    },
    blocked_pairs: {
      type: 'array',
      items: {
        type: 'string',
      },
      default: [],
      'x-env': 'SVC_A2A_BLOCKED_PAIRS',
      description: 'Blocked sender>receiver pairs, e.g. a>b.',
    },
    default_allow: {
      type: 'boolean',
      default: false,
      'x-env': 'SVC_A2A_DEFAULT_ALLOW',
      description: 'Skip the allowlist step when true.',
    },
    block_on_error: {
      type: 'boolean',
      default: true,
      'x-env': 'SVC_A2A_BLOCK_ON_ERROR',
      description: 'Block a message when an engine fails internally.',
    },
    max_payload_size_bytes: {
      type: 'integer',
      minimum: 256,
      maximum: 67108864,
      default: 1048576,
      'x-env': 'SVC_A2A_MAX_PAYLOAD_SIZE_BYTES',
      description: 'Raw body cap of /a2a/intercept.',
    },
    max_requests_per_minute: {
      type: 'integer',
      minimum: 1,
      default: 60,
      'x-env': 'SVC_A2A_MAX_REQUESTS_PER_MINUTE',
      description: 'Token bucket capacity per sender/receiver pair.',
    },
    jwt_lifetime_seconds: {
      type: 'integer',
      minimum: 1,
      maximum: 86400,
      default: 300,
      'x-env': 'SVC_A2A_JWT_LIFETIME_SECONDS',
      description: 'Lifetime of verdict JWTs.',
    },
    enable_financial_verification: {
      type: 'boolean',
      default: true,
      'x-env': 'SVC_A2A_ENABLE_FINANCIAL_VERIFICATION',
      description: 'Route financial_transaction to finance_guard (off: passthrough, unverifiable).',
    },
    enable_logic_verification: {
      type: 'boolean',
      default: true,
      'x-env': 'SVC_A2A_ENABLE_LOGIC_VERIFICATION',
      description: 'Route logic_assertion to logic_guard (off: passthrough, unverifiable).',
    },
    enable_code_verification: {
      type: 'boolean',
      default: true,
      'x-env': 'SVC_A2A_ENABLE_CODE_VERIFICATION',
      description: 'Route code_execution to code_guard (off: passthrough, unverifiable).',
    },
    sender_auth: {
      type: 'string',
      enum: ['on', 'off'],
      default: 'on',
      'x-env': 'SVC_A2A_SENDER_AUTH',
      description:
        'on: a sender id must be authenticated (bound key, agent token or signature); off: claim-only, for a sidecar whose only client is its co-located agent; refused at start (exit 78) unless server.host is loopback.',
    },
    peers: {
      type: ['object', 'string'],
      default: {},
      'x-env': 'SVC_A2A_PEERS',
      'x-env-raw': true,
      description: 'Outbound A2A peers: JSON object receiver agent id -> base URL, AgentCard URL, or {url, jwks_url?, require_signed_card?}.',
    },
    proxy: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        forward_statuses: {
          type: 'array',
          items: {
            enum: ['forwarded', 'heuristic_pass', 'unverifiable'],
          },
          default: ['forwarded'],
          'x-env': 'SVC_A2A_PROXY_FORWARD_STATUSES',
          description: 'Verdicts the A2A proxy forwards to the peer; anything else is a JSON-RPC error.',
        },
        timeout_ms: {
          type: 'integer',
          minimum: 100,
          maximum: 600000,
          default: 30000,
          'x-env': 'SVC_A2A_PROXY_TIMEOUT_MS',
          description: "Deadline for a peer's response headers, and the longest silence inside its body (SSE included).",
        },
        connect_timeout_ms: {
          type: 'integer',
          minimum: 100,
          maximum: 60000,
          default: 5000,
          'x-env': 'SVC_A2A_PROXY_CONNECT_TIMEOUT_MS',
          description: 'Deadline to open a connection to a peer.',
        },
        connections: {
          type: 'integer',
          minimum: 1,
          maximum: 1024,
          default: 64,
          'x-env': 'SVC_A2A_PROXY_CONNECTIONS',
          description: 'Keep-alive connections per peer.',
        },
        card_ttl_seconds: {
          type: 'integer',
          minimum: 0,
          maximum: 86400,
          default: 300,
          'x-env': 'SVC_A2A_PROXY_CARD_TTL_SECONDS',
          description: 'How long a peer AgentCard that verified is cached (0: fetched every time).',
        },
        task_ttl_seconds: {
          type: 'integer',
          minimum: 60,
          maximum: 31536000,
          default: 604800,
          'x-env': 'SVC_A2A_PROXY_TASK_TTL_SECONDS',
          description: 'How long the proxy remembers who created a task on a peer; after it, the task is not found through the proxy.',
        },
        egress_allow: {
          type: 'array',
          items: {
            type: 'string',
          },
          default: ['public'],
          'x-env': 'SVC_A2A_PROXY_EGRESS_ALLOW',
          description:
            "Where a URL learned from a peer's AgentCard (an endpoint on another origin than the configured card URL) may be forwarded to, checked on the resolved address at every connection: public (any public internet address), addresses or CIDRs (admitted even when private), host names or *.domain (their public addresses). Private, loopback, link-local, unique-local, CGNAT and metadata addresses are refused unless a CIDR entry admits them. Configured URLs are not checked.",
        },
      },
    },
    inbound: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        target: {
          type: ['string', 'null'],
          default: null,
          'x-env': 'SVC_A2A_INBOUND_TARGET',
          description: 'Inbound guard mode: base URL of the local agent that /a2a/inbound forwards verified requests to; off when unset.',
        },
        agent_id: {
          type: ['string', 'null'],
          default: null,
          'x-env': 'SVC_A2A_INBOUND_AGENT_ID',
          description: 'Agent id of the local agent (the receiver of inbound messages); required with inbound.target.',
        },
        trusted_issuers: {
          type: ['array', 'string'],
          default: [],
          'x-env': 'SVC_A2A_INBOUND_TRUSTED_ISSUERS',
          'x-env-raw': true,
          description: 'Sidecars whose X-Proofgate-Verdict vouches for an inbound message: JSON array of {issuer, jwks_url | jwks}.',
        },
      },
    },
  },
});

/** a2a.trusted_agents as a list, whichever form the operator wrote it in (a bootstrap file adds to it) */
export function trustList(v: string | unknown[]): unknown[] {
  if (Array.isArray(v)) return v;
  const text = (v ?? '').trim();
  if (text.startsWith('[')) {
    try {
      return JSON.parse(text) as unknown[];
    } catch {
      throw new Error('a2a.trusted_agents (SVC_A2A_TRUSTED_AGENTS): starts with [ but is not valid JSON');
    }
  }
  return text === '' ? [] : text.split(',').map((s) => s.trim()).filter(Boolean);
}
