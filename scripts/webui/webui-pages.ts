// The pictures of scripts/webui/webui-screenshots.ts: the Web UI's pages, made readable before each shot.

/** Progress on stderr, as the script's own. */
const say = (line: string) => console.error(`[screenshots] ${line}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type Page = import('playwright-core').Page;

/** The list's columns: dex's search attributes in, what says little about a dex run out. */
const LIST_COLUMNS = { remove: ['Run ID', 'Start', 'End'], add: ['DexState', 'DexWaitingFor', 'DexPhase', 'DexCostUsd'] };

/** The workflow list at `url` (the namespace's, or `dex list`'s link to the waiting runs) with dex's search attributes as columns, once the runs show. */
export async function shootList(page: Page, url: string, ids: string[], file: string): Promise<void> {
  await page.goto(url);
  for (const id of ids) await page.getByText(id, { exact: true }).first().waitFor({ timeout: 30_000 });
  await page.getByLabel('Collapse saved views').click();
  await page.getByTestId('workflows-summary-table-configuration-button').click();
  for (const column of LIST_COLUMNS.remove) await page.getByLabel(`Remove ${column} column`).click();
  for (const column of LIST_COLUMNS.add) await page.getByLabel(`Add ${column} column`).click();
  await page.getByTestId('drawer-close-button').click();
  await page.getByRole('columnheader', { name: LIST_COLUMNS.add[0] }).waitFor({ timeout: 10_000 });
  await page.getByRole('cell', { name: 'waiting', exact: true }).first().waitFor({ timeout: 30_000 })
    .catch(() => say('the list shows no DexState "waiting" (search attributes not set yet?): taking the picture anyway'));
  await sleep(1_000);
  await page.screenshot({ path: file });
  say(`saved ${file}`);
}

/**
 * A run's page on its "User Metadata" tab: the static summary and details dex gives a run, and
 * its current details (state, gate, cost, latest steps), which the UI renders in a frame.
 * `expect`: a text the current details should hold once they have loaded.
 */
export async function shootRun(page: Page, ui: string, id: string, expect: string, file: string): Promise<void> {
  await page.goto(`${ui}/namespaces/default/workflows/${encodeURIComponent(id)}`);
  await page.getByText(id).first().waitFor({ timeout: 30_000 });
  await page.getByText('User Metadata', { exact: true }).first().click();
  await page.getByText('Current Details', { exact: true }).first().waitFor({ timeout: 30_000 });
  await page.frameLocator('iframe[title="output"]').last().getByText(expect).first().waitFor({ timeout: 30_000 })
    .catch(() => say(`the current details of ${id} do not say "${expect}": taking the picture anyway`));
  await sleep(1_000);
  await unclipFrames(page);
  await sleep(500);
  await page.screenshot({ path: file });
  say(`saved ${file}`);
}

/**
 * The UI sizes each markdown frame a little short of its content and lets long command lines run
 * off to the right: wrap those lines and make every frame as tall as what it shows.
 */
async function unclipFrames(page: Page): Promise<void> {
  await page.locator('iframe[title="output"]').evaluateAll((frames) => {
    for (const frame of frames as { contentDocument: any; height: string; style: { height: string } }[]) {
      const doc = frame.contentDocument;
      if (!doc) continue;
      // Through the CSSOM: the frame's content security policy refuses a <style> element.
      for (const el of doc.querySelectorAll('pre, code')) {
        el.style.whiteSpace = 'pre-wrap';
        el.style.overflowWrap = 'anywhere';
      }
      const height = `${doc.documentElement.scrollHeight + 4}px`;
      frame.height = height;
      frame.style.height = height;
    }
  });
}
