import { defineSettings } from '../../core/plugin/settings.js';

/**
 * The attestation plugin's settings (`attestation.*` in the configuration, SVC_* names in `x-env`): the
 * fragment the kernel puts into the configuration schema (config/schema.json is generated from it).
 */
export interface AttestationSettings {
  issuer: string;
  key_continuity_policy: 'ephemeral' | 'persistent';
  signing_key_pem: string | null;
  key_name: string;
  lifetime_seconds: number;
  trusted_issuers: string[];
  prune_grace_seconds: number | null;
  retired_keys: Array<{ key_name: string; public_key_pem: string; retired_at: string }>;
}

export const attestationSettings = defineSettings<AttestationSettings>(
  'attestation',
  {
    type: 'object',
    additionalProperties: false,
    default: {},
    properties: {
      issuer: {
        type: 'string',
        pattern: '^did:svc:',
        default: 'did:svc:node:staging',
        'x-env': 'SVC_ATTESTATION_ISSUER',
        description: 'Issuer DID of attestations.',
      },
      key_continuity_policy: {
        type: 'string',
        enum: ['ephemeral', 'persistent'],
        default: 'ephemeral',
        'x-env': 'SVC_ATTESTATION_KEY_CONTINUITY_POLICY',
        description: 'ephemeral: fresh key at start-up; persistent: signing_key_pem.',
      },
      signing_key_pem: {
        type: ['string', 'null'],
        default: null,
        'x-env': 'SVC_ATTESTATION_SIGNING_KEY_PEM',
        description: 'PKCS#8 P-256 PEM for the persistent policy.',
      },
      key_name: {
        type: 'string',
        pattern: '^[A-Za-z0-9._-]{1,64}$',
        default: 'key-1',
        'x-env': 'SVC_ATTESTATION_KEY_NAME',
        description: 'Key name in the kid (<issuer>#<key name>).',
      },
      lifetime_seconds: {
        type: 'integer',
        minimum: 60,
        maximum: 604800,
        default: 3600,
        'x-env': 'SVC_ATTESTATION_LIFETIME_SECONDS',
        description: 'Attestation lifetime.',
      },
      trusted_issuers: {
        type: 'array',
        items: {
          type: 'string',
        },
        default: ['did:svc:node:production', 'did:svc:node:staging'],
        'x-env': 'SVC_ATTESTATION_TRUSTED_ISSUERS',
        description: 'Issuer DIDs accepted when verifying attestations.',
      },
      prune_grace_seconds: {
        type: ['integer', 'null'],
        minimum: 0,
        maximum: 31536000,
        default: 86400,
        'x-env': 'SVC_ATTESTATION_PRUNE_GRACE_SECONDS',
        description: 'Stored attestation records are deleted this long after they expire (null: never).',
      },
      retired_keys: {
        type: 'array',
        maxItems: 16,
        default: [],
        'x-env': 'SVC_ATTESTATION_RETIRED_KEYS',
        description:
          'Keys retired by a rotation (JSON array): published in the JWKS and accepted for tokens issued before retired_at, until retired_at + lifetime_seconds. Each needs its own key_name.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['key_name', 'public_key_pem', 'retired_at'],
          properties: {
            key_name: {
              type: 'string',
              pattern: '^[A-Za-z0-9._-]{1,64}$',
            },
            public_key_pem: {
              type: 'string',
              maxLength: 4096,
            },
            retired_at: {
              type: 'string',
              format: 'date-time',
            },
          },
        },
      },
    },
  },
  // a persistent key is the server's identity across restarts: there is none to keep without a PEM
  (c) =>
    c.key_continuity_policy === 'persistent' && !c.signing_key_pem
      ? ['attestation.signing_key_pem (SVC_ATTESTATION_SIGNING_KEY_PEM): required by the persistent key policy']
      : [],
);
