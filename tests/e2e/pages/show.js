// Renders a runCase() result as text and a small heatmap, so a screenshot shows at a glance
// whether a page computed anything sensible. Display only: the tests read window.__result.

/** Appends one result, titled `where` (for example "main thread"), to `root`. */
export function showResult(root, where, result) {
  const { build, outputSum, rowSums, weights } = result;
  const section = element('section', '', root);
  element('h2', `${where}: ${build} build`, section);
  element('p', `sum of output = ${outputSum.toFixed(6)}`, section);
  element('p', `row sums of head 0's weights = ${rowSums.map((s) => s.toFixed(6)).join(', ')}`, section);
  const n = rowSums.length;
  const grid = element('div', '', section);
  grid.className = 'heatmap';
  grid.style.gridTemplateColumns = `repeat(${n}, 2.5em)`;
  for (const w of weights) {
    const cell = element('span', w.toFixed(2), grid);
    cell.style.background = `rgba(37, 99, 235, ${w})`;
    if (w > 0.6) cell.style.color = 'white';
  }
}

/** Shows a failure in red. */
export function showError(root, message) {
  element('pre', message, root).className = 'error';
}

function element(tag, text, parent) {
  const node = document.createElement(tag);
  node.textContent = text;
  parent.append(node);
  return node;
}
