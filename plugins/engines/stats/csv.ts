/**
 * A small RFC 4180 reader: comma-separated, fields optionally double-quoted, `""` an escaped quote
 * inside quotes, CRLF or LF line ends, a leading UTF-8 BOM ignored, a final line end optional.
 * The cell and column caps are enforced while reading, so an oversized file is refused before it is all split.
 */

export class CsvError extends Error {
  constructor(
    readonly kind: 'malformed' | 'cell_cap' | 'column_cap' | 'empty' | 'no_columns',
    message: string,
  ) {
    super(message);
  }
}

export interface Csv {
  header: string[];
  rows: string[][];
}

export function parseCsv(text: string, maxCells: number, maxColumns = Infinity): Csv {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let cells = 0;
  let i = 0;
  let quoted = false;
  let atFieldStart = true;
  const endField = () => {
    record.push(field);
    field = '';
    atFieldStart = true;
    if (++cells > maxCells) throw new CsvError('cell_cap', `more than ${maxCells} cells`);
    // the header decides the column count: refused as soon as it passes the cap
    if (records.length === 0 && record.length > maxColumns) throw new CsvError('column_cap', `more than ${maxColumns} columns`);
  };
  const endRecord = () => {
    endField();
    // a blank line is not a record (common at the end of files)
    if (!(record.length === 1 && record[0] === '')) records.push(record);
    else cells--;
    record = [];
  };
  while (i < src.length) {
    const ch = src[i];
    if (quoted) {
      if (ch === '"') {
        if (src[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        if (i < src.length && src[i] !== ',' && src[i] !== '\n' && src[i] !== '\r') {
          throw new CsvError('malformed', `unexpected character after a closing quote (record ${records.length + 1})`);
        }
        continue;
      }
      field += ch;
      i++;
      continue;
    }
    if (ch === '"' && atFieldStart) {
      quoted = true;
      atFieldStart = false;
      i++;
    } else if (ch === ',') {
      endField();
      i++;
    } else if (ch === '\r' || ch === '\n') {
      endRecord();
      i += ch === '\r' && src[i + 1] === '\n' ? 2 : 1;
    } else if (ch === '"') {
      throw new CsvError('malformed', `a quote inside an unquoted field (record ${records.length + 1})`);
    } else {
      field += ch;
      atFieldStart = false;
      i++;
    }
  }
  if (quoted) throw new CsvError('malformed', 'unterminated quoted field');
  if (field !== '' || record.length > 0) endRecord();
  if (records.length === 0) throw new CsvError('empty', 'the CSV is empty');
  const header = records[0].map((h) => h.trim());
  if (header.every((h) => h === '')) throw new CsvError('no_columns', 'the CSV header names no columns');
  const seen = new Set<string>();
  for (const h of header) {
    if (h === '') throw new CsvError('no_columns', 'a header cell is empty');
    if (seen.has(h)) throw new CsvError('malformed', `duplicate column ${JSON.stringify(h)}`);
    seen.add(h);
  }
  const rows = records.slice(1);
  rows.forEach((r, k) => {
    if (r.length !== header.length) throw new CsvError('malformed', `record ${k + 2} has ${r.length} fields, the header ${header.length}`);
  });
  return { header, rows };
}
