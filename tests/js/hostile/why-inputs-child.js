// Run by why-inputs.test.js as `node --max-old-space-size=256 why-inputs-child.js`: gives the why
// tools a 10 MB string where they take one token or a prompt, on the causal built-in model,
// printing one JSON line per input with the error it ended in, then checks that the model still
// explains and patches. A string read whole exhausts the heap and aborts this process.
import { loadEngine } from '../../../web/src/index.js';

const CLEAN = 'Yesterday Henry met William at the station. Today Henry met';
const CORRUPTED = 'Yesterday Henry met James at the station. Today Henry met';
const HUGE = 'word '.repeat(2e6);

const engine = await loadEngine();
const gpt = await engine.loadModel({ builtin: 'causal' });
const run = gpt.run(CLEAN);
const print = (line) => console.log(JSON.stringify(line));
async function attempt(name, call) {
  try {
    await call();
    print({ name, message: null });
  } catch (error) {
    print({ name, message: error.message });
  }
}
await attempt('contributions against', () => run.contributions(3, { against: HUGE }));
await attempt('contributions token', () => run.contributions(3, { token: HUGE }));
await attempt('patch against', () => gpt.patch({ clean: CLEAN, corrupted: CORRUPTED, against: HUGE }));
await attempt('patch corrupted', () => gpt.patch({ clean: CLEAN, corrupted: HUGE }));
await attempt('patch clean', () => gpt.patch({ clean: HUGE, corrupted: CORRUPTED }));
const patched = await gpt.patch({ clean: CLEAN, corrupted: CORRUPTED, token: ' william', against: ' james' });
print({ name: 'afterwards', parts: run.contributions(run.ids.length - 1).heads.length, runs: patched.runs });
engine.dispose();
