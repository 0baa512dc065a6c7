// The head-role table's files (web/demo/ui/role-files.js): CSV that a spreadsheet reads back cell for
// cell (RFC 4180 quoting, CRLF, no formulas), and JSON that parses back to the table, counted from 1.
import { rolesCsv, rolesJson } from '../../../web/demo/ui/role-files.js';

const ROWS = [
  { layer: 0, head: 0, scores: { previous: 0.98765, induction: null }, top: { role: 'previous', score: 0.98765 } },
  { layer: 1, head: 3, scores: { previous: 0.035, induction: 0.92197 }, top: { role: 'induction', score: 0.92197 } },
  { layer: 1, head: 1, scores: { previous: 0.1, induction: 0.2 }, top: null },
];

test('CSV: a header, one line per head counted from 1, four decimals, empty for null, CRLF', () => {
  expect(rolesCsv(ROWS, ['previous', 'induction'])).toBe(
    'layer,head,top role,top score,previous,induction\r\n' +
    '1,1,previous,0.9877,0.9877,\r\n' +
    '2,4,induction,0.9220,0.0350,0.9220\r\n' +
    '2,2,,,0.1000,0.2000\r\n');
});

test('CSV: fields with commas, quotes or line breaks are quoted; a formula is disarmed', () => {
  const rows = [{ layer: 0, head: 0, scores: {}, top: { role: '=HYPERLINK("x"),\n', score: 1 } }];
  expect(rolesCsv(rows, ['a,b', '@sum', '-x']).split('\r\n')).toEqual([
    'layer,head,top role,top score,"a,b",\'@sum,\'-x',
    '1,1,"\'=HYPERLINK(""x""),\n",1.0000,,,',
    '',
  ]);
});

test('CSV: a text starting with + or a tab or CR is disarmed too, and a lone CR is quoted', () => {
  const rows = ['+1', '\tcmd', '\r=1', 'a\rb'].map((role, head) => ({ layer: 0, head, scores: {}, top: { role, score: 0.5 } }));
  expect(rolesCsv(rows, []).split('\r\n').slice(1, -1)).toEqual([
    "1,1,'+1,0.5000",
    "1,2,'\tcmd,0.5000",
    "1,3,\"'\r=1\",0.5000",
    '1,4,"a\rb",0.5000',
  ]);
});

test('JSON: parses back to the table, counted from 1, nulls kept; a score JSON cannot hold is a RangeError', () => {
  const parsed = JSON.parse(rolesJson(ROWS, { model: 'the built-in GPT' }));
  expect(parsed).toEqual({
    format: 'multihead-head-roles', version: 1, model: 'the built-in GPT', columns: ['previous', 'induction'],
    heads: ROWS.map((r) => ({ ...r, layer: r.layer + 1, head: r.head + 1 })),
  });
  const bad = [{ layer: 2, head: 0, scores: { broad: NaN }, top: null }];
  expect(() => rolesJson(bad)).toThrow(new RangeError('layer 3 head 1: the broad score is NaN, which JSON cannot hold'));
  const badTop = [{ layer: 0, head: 5, scores: { broad: 0.9 }, top: { role: 'broad', score: Infinity } }];
  expect(() => rolesJson(badTop)).toThrow(new RangeError('layer 1 head 6: the top score is Infinity, which JSON cannot hold'));
});
