// How every part of the bench prints a target: met, NOT met, or unjudged when the run could not
// judge it (a target that holds only in a run where the machine was quiet enough).

/** @param {{ what: string, value: string, target: string, met: boolean | null, note?: string }} t */
export function targetLine(t) {
  const verdict = t.met === null ? 'unjudged' : t.met ? 'met     ' : 'NOT met ';
  return `  ${verdict} ${t.what}: ${t.value} (target ${t.target}${t.note ? `; ${t.note}` : ''})`;
}
