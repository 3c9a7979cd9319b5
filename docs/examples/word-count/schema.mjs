// The request schema, by $id: the route validates bodies with it, the verifier composite inputs.
export const SCHEMA_ID = 'https://example.org/schemas/word-count/request.json';

export const REQUEST_SCHEMA = {
  $id: SCHEMA_ID,
  type: 'object',
  required: ['text'],
  additionalProperties: false,
  properties: {
    text: { type: 'string', maxLength: 100000 },
    claimed_words: { type: 'integer', minimum: 0 },
  },
};
