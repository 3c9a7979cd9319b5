// Runs inside a worker thread: pure, plain values in and out.
export function countWords(text) {
  const words = text.trim().split(/\s+/u);
  return words[0] === '' ? 0 : words.length;
}
