// The views by the names the page, the element and their URLs and attributes use.
import { createAlignmentView } from './alignment-view.js';
import { createGridView } from './grid-view.js';
import { createHeadView } from './head-view.js';
import { createLinesView } from './lines-view.js';
import { createStepsView } from './steps-view.js';
import { createWhyView } from './why-view.js';

// The average and rollout views draw one (n × n) matrix, as the head view does; the alignment view
// draws an encoder–decoder's cross-attention.
export const VIEWS = {
  grid: createGridView, head: createHeadView, lines: createLinesView, steps: createStepsView,
  average: createHeadView, rollout: createHeadView, why: createWhyView, alignment: createAlignmentView,
};
