/**
 * A strict, small XML 1.0 well-formedness check for documents the project writes (the bench's SVG):
 * one root element, matched tags, quoted and unique attributes, no raw `<` or stray `&` in text or
 * values, only the predefined and numeric references, only characters XML allows. It returns the
 * tree with references decoded, so a test can read back what a browser would. No DTDs: the project
 * writes none, and one in a document under test is an error here.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: Array<XmlElement | string>;
}

const NAME = /[A-Za-z_:][-A-Za-z0-9_:.]*/y;
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const legalCp = (cp: number) => cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);

function decode(raw: string, at: number): string {
  if (raw.includes('<')) throw new Error(`raw '<' at ${at}`);
  return raw.replace(/&([^;]*);?/g, (all, ref: string) => {
    if (!all.endsWith(';')) throw new Error(`unterminated reference at ${at}: ${all.slice(0, 12)}`);
    if (ref in ENTITIES) return ENTITIES[ref];
    const m = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(ref);
    if (!m) throw new Error(`unknown reference &${ref}; at ${at}`);
    const cp = m[1] ? parseInt(m[1], 16) : Number(m[2]);
    if (!legalCp(cp)) throw new Error(`reference to a character XML forbids (${cp}) at ${at}`);
    return String.fromCodePoint(cp);
  });
}

export function parseXml(src: string): XmlElement {
  for (const ch of src) if (!legalCp(ch.codePointAt(0)!)) throw new Error(`character U+${ch.codePointAt(0)!.toString(16)} is not allowed in XML`);
  let i = 0;
  const ws = () => {
    while (i < src.length && ' \t\r\n'.includes(src[i])) i++;
  };
  const name = (): string => {
    NAME.lastIndex = i;
    const m = NAME.exec(src);
    if (!m) throw new Error(`a name expected at ${i}`);
    i += m[0].length;
    return m[0];
  };
  const misc = () => {
    for (;;) {
      ws();
      if (src.startsWith('<!--', i)) {
        const end = src.indexOf('-->', i + 4);
        if (end < 0 || src.slice(i + 4, end).includes('--')) throw new Error(`bad comment at ${i}`);
        i = end + 3;
      } else if (src.startsWith('<?', i) && !/^<\?xml[\s?]/i.test(src.slice(i, i + 6))) {
        const end = src.indexOf('?>', i);
        if (end < 0) throw new Error(`unterminated processing instruction at ${i}`);
        i = end + 2;
      } else return;
    }
  };
  const element = (): XmlElement => {
    if (src[i] !== '<') throw new Error(`'<' expected at ${i}`);
    i++;
    const el: XmlElement = { name: name(), attrs: {}, children: [] };
    for (;;) {
      const before = i;
      ws();
      if (src.startsWith('/>', i)) {
        i += 2;
        return el;
      }
      if (src[i] === '>') {
        i++;
        break;
      }
      if (i === before) throw new Error(`whitespace expected before an attribute at ${i}`);
      const key = name();
      ws();
      if (src[i] !== '=') throw new Error(`'=' expected at ${i}`);
      i++;
      ws();
      const q = src[i];
      if (q !== '"' && q !== "'") throw new Error(`quoted value expected at ${i}`);
      const end = src.indexOf(q, i + 1);
      if (end < 0) throw new Error(`unterminated attribute value at ${i}`);
      if (key in el.attrs) throw new Error(`duplicate attribute ${key} at ${i}`);
      el.attrs[key] = decode(src.slice(i + 1, end), i);
      i = end + 1;
    }
    for (;;) {
      const lt = src.indexOf('<', i);
      if (lt < 0) throw new Error(`<${el.name}> is never closed`);
      const raw = src.slice(i, lt);
      if (raw.includes(']]>')) throw new Error(`']]>' in text at ${i}`);
      if (raw) el.children.push(decode(raw, i));
      i = lt;
      if (src.startsWith('</', i)) {
        i += 2;
        const closing = name();
        ws();
        if (closing !== el.name || src[i] !== '>') throw new Error(`</${closing}> at ${i} does not close <${el.name}>`);
        i++;
        return el;
      }
      if (src.startsWith('<!--', i) || src.startsWith('<?', i)) {
        const at = i;
        misc();
        // an XML declaration anywhere but the start is neither a comment nor a processing instruction
        if (i === at) throw new Error(`misplaced declaration at ${i}`);
      } else if (src.startsWith('<![CDATA[', i)) {
        const end = src.indexOf(']]>', i);
        if (end < 0) throw new Error(`unterminated CDATA at ${i}`);
        el.children.push(src.slice(i + 9, end));
        i = end + 3;
      } else el.children.push(element());
    }
  };
  const decl = /^<\?xml\s+version="1\.[0-9]"(?:\s+encoding="[A-Za-z][-A-Za-z0-9._]*")?(?:\s+standalone="(?:yes|no)")?\s*\?>/.exec(src);
  if (decl) i = decl[0].length;
  misc();
  if (src.startsWith('<!DOCTYPE', i)) throw new Error('a DOCTYPE is not accepted here');
  const root = element();
  misc();
  if (i !== src.length) throw new Error(`content after the root element at ${i}`);
  return root;
}

/** every element named `name` under `el`, document order */
export function findAll(el: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (e: XmlElement) => {
    if (e.name === name) out.push(e);
    for (const c of e.children) if (typeof c !== 'string') walk(c);
  };
  walk(el);
  return out;
}

/** the text content of `el`, references decoded */
export const textOf = (el: XmlElement): string => el.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');
