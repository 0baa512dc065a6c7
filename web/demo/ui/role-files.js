// The head-role table as files a reader can keep: CSV for a spreadsheet, JSON for a program.
// Layers and heads are counted from 1 in both, as on the page. A row is { layer, head, scores:
// { name: number | null }, top: { role, score } | null } (layer and head counted from 0).
import { csvField } from '../../src/views/export.js';

const DIGITS = 4;


const number = (v) => (v === null || v === undefined ? '' : v.toFixed(DIGITS));

/** The table as CSV (RFC 4180, CRLF line ends): layer, head, top role, top score, then `columns`. */
export function rolesCsv(rows, columns) {
  const lines = [['layer', 'head', 'top role', 'top score', ...columns].map(csvField).join(',')];
  for (const { layer, head, scores, top } of rows) {
    lines.push([layer + 1, head + 1, csvField(top?.role ?? ''), number(top?.score), ...columns.map((c) => number(scores[c]))].join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * The table as JSON: { format: 'multihead-head-roles', version: 1, ...meta, columns, heads:
 * [{ layer, head, top, scores }] }, nulls kept. A score JSON cannot hold (NaN, ±Infinity) is a RangeError.
 */
export function rolesJson(rows, meta = {}) {
  const heads = rows.map(({ layer, head, scores, top }) => {
    const numbers = [...Object.entries(scores).map(([name, v]) => [`the ${name} score`, v]), ...(top ? [['the top score', top.score]] : [])];
    for (const [what, v] of numbers) {
      if (v !== null && !Number.isFinite(v)) throw new RangeError(`layer ${layer + 1} head ${head + 1}: ${what} is ${v}, which JSON cannot hold`);
    }
    return { layer: layer + 1, head: head + 1, top, scores };
  });
  const columns = rows.length ? Object.keys(rows[0].scores) : [];
  return `${JSON.stringify({ format: 'multihead-head-roles', version: 1, ...meta, columns, heads }, null, 2)}\n`;
}
