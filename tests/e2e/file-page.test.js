// A page opened from file:// that asks <multihead-view> for a model folder: browsers do not let
// such a page fetch files, and the message says so (it used to ask for Node 20.16).(A Hub id from such
// a page goes to the Hub, which is tests/e2e/hub-page.test.js's concern.)
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launchBrowser } from './browser.js';

const PAGE = pathToFileURL(fileURLToPath(new URL('./pages/single-file.html', import.meta.url))).href;
let browser;

beforeAll(async () => { browser = await launchBrowser(); });
afterAll(async () => { await browser?.close(); });

/** The message of the error event of an element asking for `model` on the file:// page. */
async function elementError(model) {
  const { page } = await browser.open(PAGE);
  const message = await page.evaluate((name) => new Promise((resolve) => {
    const view = document.createElement('multihead-view');
    view.setAttribute('model', name);
    view.setAttribute('sentence', 'The cat sat.');
    view.addEventListener('error', (event) => resolve(event.detail.message));
    document.body.append(view);
  }), model);
  await page.close();
  return message;
}

test.each(['./__proto__/', './my-model/'])('model="%s" on a file:// page explains that the page must be served', async (model) => {
  const message = await elementError(model);
  const folder = model.slice(2, -1);
  expect(message).toMatch(new RegExp(`^cannot read config\\.json from file:///.*/${folder}/config\\.json: a browser cannot fetch file: URLs; ` +
    'serve the page and the model over http\\(s\\), or pass the files \\(File objects or bytes\\) to loadModel$'));
  expect(message).not.toContain('Node');
});

