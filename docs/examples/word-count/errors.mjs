// Problem types and constraint ids: everything a client can match a refusal on, in one place.
export const C = {
  invalidRequest: 'word_count.invalid_request',
  timeout: 'word_count.timeout',
};

/** @param {import('../../../core/plugin/kit.js').PluginKit} kit */
export function problems(kit) {
  return { unavailable: kit.defineProblem('word_count_unavailable', 503, 'Word count engine unavailable') };
}
