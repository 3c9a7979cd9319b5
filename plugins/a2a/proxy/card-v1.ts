/**
 * An AgentCard as A2A 1.0 defines it, and nothing else. An A2A 1.0 verifier (the official SDK's
 * `verifyAgentCardSignature`) does not canonicalise the card it was served: it first reads it into
 * the 1.0 card type, which drops every member 1.0 does not define (a v0.3 or hybrid card's `url`,
 * `preferredTransport`, `additionalInterfaces`, `protocolVersion`, `security`...) and fills the
 * defaults (a `required: false` is left out of its JSON, an optional `streaming: false` is kept),
 * and signs the JSON of that. A card re-signed with those members in
 * it verifies for nobody. So the proxy serves, and signs, exactly this projection: what it signs is
 * what the verifier rebuilds, member for member. The shapes follow the 1.0 protobuf's JSON mapping
 * (camelCase names; snake_case spellings are not carried over).
 */
type Spec =
  | 's' // string (String() of any set value, as the verifier reads it)
  | 'b' // optional boolean
  | 'bf' // boolean defaulting to false: the reader's JSON leaves the default out, so only `true` is kept
  | 'sl' // list of strings
  | 'struct' // a free-form object, as is
  | { list: Spec }
  | { map: Spec }
  | { oneof: Record<string, Spec> }
  | { obj: Record<string, Spec> };

const STRING_LIST: Spec = { obj: { list: 'sl' } };
const SECURITY_REQUIREMENT: Spec = { obj: { schemes: { map: STRING_LIST } } };
const SCOPES: Spec = { map: 's' };
const FLOWS: Spec = {
  oneof: {
    authorizationCode: { obj: { authorizationUrl: 's', tokenUrl: 's', refreshUrl: 's', scopes: SCOPES, pkceRequired: 'bf' } },
    clientCredentials: { obj: { tokenUrl: 's', refreshUrl: 's', scopes: SCOPES } },
    implicit: { obj: { authorizationUrl: 's', refreshUrl: 's', scopes: SCOPES } },
    password: { obj: { tokenUrl: 's', refreshUrl: 's', scopes: SCOPES } },
    deviceCode: { obj: { deviceAuthorizationUrl: 's', tokenUrl: 's', refreshUrl: 's', scopes: SCOPES } },
  },
};
const SECURITY_SCHEME: Spec = {
  oneof: {
    apiKeySecurityScheme: { obj: { description: 's', location: 's', name: 's' } },
    httpAuthSecurityScheme: { obj: { description: 's', scheme: 's', bearerFormat: 's' } },
    oauth2SecurityScheme: { obj: { description: 's', flows: FLOWS, oauth2MetadataUrl: 's' } },
    openIdConnectSecurityScheme: { obj: { description: 's', openIdConnectUrl: 's' } },
    mtlsSecurityScheme: { obj: { description: 's' } },
  },
};
export const AGENT_CARD_V1: Spec = {
  obj: {
    name: 's',
    description: 's',
    supportedInterfaces: { list: { obj: { url: 's', protocolBinding: 's', tenant: 's', protocolVersion: 's' } } },
    provider: { obj: { url: 's', organization: 's' } },
    version: 's',
    documentationUrl: 's',
    capabilities: {
      obj: {
        streaming: 'b',
        pushNotifications: 'b',
        extensions: { list: { obj: { uri: 's', description: 's', required: 'bf', params: 'struct' } } },
        extendedAgentCard: 'b',
      },
    },
    securitySchemes: { map: SECURITY_SCHEME },
    securityRequirements: { list: SECURITY_REQUIREMENT },
    defaultInputModes: 'sl',
    defaultOutputModes: 'sl',
    skills: { list: { obj: { id: 's', name: 's', description: 's', tags: 'sl', examples: 'sl', inputModes: 'sl', outputModes: 'sl', securityRequirements: { list: SECURITY_REQUIREMENT } } } },
    signatures: { list: { obj: { protected: 's', signature: 's', header: 'struct' } } },
    iconUrl: 's',
  },
};

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isSet = (v: unknown) => v !== null && v !== undefined;

function project(v: unknown, spec: Spec): unknown {
  if (spec === 's') return isSet(v) ? String(v) : undefined;
  if (spec === 'b') return isSet(v) ? Boolean(v) : undefined;
  if (spec === 'bf') return isSet(v) && Boolean(v) ? true : undefined;
  if (spec === 'sl') return Array.isArray(v) ? v.map(String) : undefined;
  if (spec === 'struct') return isObj(v) ? structuredClone(v) : undefined;
  if ('list' in spec) return Array.isArray(v) ? v.map((x) => project(x, spec.list) ?? (typeof spec.list === 'object' && 'obj' in spec.list ? {} : undefined)).filter(isSet) : undefined;
  if ('map' in spec) {
    if (!isObj(v)) return undefined;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = project(x, spec.map) ?? {};
    return out;
  }
  if (!isObj(v)) return undefined;
  if ('oneof' in spec) {
    // the verifier takes the first member set, in the protobuf's order
    for (const [k, s] of Object.entries(spec.oneof)) if (isSet(v[k])) return { [k]: project(v[k], s) ?? {} };
    return {};
  }
  const out: Record<string, unknown> = {};
  for (const [k, s] of Object.entries(spec.obj)) {
    const x = project(v[k], s);
    if (x !== undefined) out[k] = x;
  }
  return out;
}

/** the card with exactly the members an A2A 1.0 reader keeps */
export function projectCardV1(card: Record<string, unknown>): Record<string, unknown> {
  return project(card, AGENT_CARD_V1) as Record<string, unknown>;
}
