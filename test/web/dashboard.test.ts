/**
 * The dashboard in a real browser: Debian's Chromium, headless, against a real server on
 * loopback (startHttpServer) over the bundled sample (samples/nestful, learned and fitted as
 * `toolgraph serve --data samples/nestful` does), serving a fresh build of src/web. Sessions'
 * model tier is a chat-completions server on loopback, so a step really spends cents.
 *
 * Each view loads with no console error; the graph canvas draws the graph sigma holds; selecting
 * a tool lists its successors; the ask form answers with breakdowns; a pattern's radar and trend
 * render and an approval moves the radar; a session's budget bar is as wide as its cents left
 * over its budget; the keyboard reaches every view; writes need the token when one is set; the
 * page's files stay within their size budget. TOOLGRAPH_SCREENSHOTS=DIR writes a screenshot of
 * each view there (docs/dashboard.md shows them).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard, type BuiltFile } from '../../scripts/build-web.js';
import { loadToolgraph } from '../../src/cli/learn.js';
import { buildHttpApp, startHttpServer, type RunningHttpServer } from '../../src/service/http/server.js';
import { inMemoryService, type ToolgraphService } from '../../src/service/service.js';
import { Toolgraph } from '../../src/service/toolgraph.js';
import { promptCandidates, startChatServer, type ChatServer } from '../helpers/chat-server.js';
import { CHROMIUM, HAVE_CHROMIUM, launchBrowser, openPage, screenshot, type Browser } from './_browser.js';

// The page's own globals, in the functions the page runs (page.evaluate, waitForFunction).
declare const document: any;

const SAMPLE = join(import.meta.dirname, '..', '..', 'samples', 'nestful');
const TOKEN = 's3cret';
const SIZE_BUDGET = 1024 * 1024;

let dir: string;
let files: BuiltFile[];
let chat: ChatServer;
let service: ToolgraphService;
let server: RunningHttpServer;
let guarded: { url: string; close(): Promise<void> };
let browser: Browser;

async function api<T = any>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${server.url}${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await response.json()) as T;
}

/** `fn` run in the page on its test hook (window.__toolgraph). */
const hook = <T>(page: Page, fn: (h: any) => T): Promise<T> => page.evaluate(`(${fn.toString()})(globalThis.__toolgraph)`) as Promise<T>;

async function graphDrawn(page: Page): Promise<void> {
  await page.waitForFunction(() => (globalThis as any).__toolgraph?.graph.firstDrawMs !== null, null, { timeout: 20_000 });
}

describe.skipIf(HAVE_CHROMIUM)('the dashboard in Chromium', () => {
  it.skip(`needs Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it), or TOOLGRAPH_CHROMIUM`, () => {});
});

describe.runIf(HAVE_CHROMIUM)('the dashboard in Chromium', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgraph-web-'));
    files = await buildDashboard(dir);
    chat = await startChatServer();
    chat.answer((req) => ({ content: JSON.stringify({ tool: promptCandidates(req)[0] }), promptTokens: 2_000, completionTokens: 200 }));
    const io = { out: () => {}, err: () => {} };
    const tg = await loadToolgraph({ data: SAMPLE }, io, { rebuildDelayMs: 5 });
    // Threshold 1, never calibrated: every step the graph is not certain of asks the model tier.
    service = inMemoryService(tg, { sessions: { options: { defaultThreshold: 1, calibrate: false, model: { url: chat.url } } } });
    server = await startHttpServer(service, { port: 0, host: '127.0.0.1' }, { dashboard: dir });
    // The same service behind a token (its own app, so closing it leaves the service open).
    const app = buildHttpApp(service, { token: TOKEN, dashboard: dir, loopbackHostsOnly: true, boundHost: '127.0.0.1' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    guarded = { url: `http://127.0.0.1:${port}`, close: () => app.close() };
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await guarded?.close();
    await server?.close();
    await chat?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('loads each view with no console error', async () => {
    const { page, errors } = await openPage(browser, `${server.url}/`);
    await graphDrawn(page);
    await screenshot(page, 'dashboard-graph');
    const ready: Record<string, string> = {
      ask: '#ask-text',
      patterns: '.pattern-list table tbody tr',
      sessions: '.session-cards p, .session-cards article',
      health: '.health table.figures',
    };
    for (const [view, selector] of Object.entries(ready)) {
      await page.click(`#tab-${view}`);
      await page.waitForSelector(`#view-${view} ${selector}`, { state: 'visible' });
      expect(await hook(page, (h) => h.view)).toBe(view);
      expect(await page.isHidden('#view-graph')).toBe(true);
    }
    await page.waitForSelector('#view-health table.latency');
    await screenshot(page, 'dashboard-health');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('draws the graph sigma holds, on a canvas that is not blank', async () => {
    const { page, errors } = await openPage(browser, `${server.url}/#graph`);
    await graphDrawn(page);
    const graph = await api('/v1/graph');
    expect(await hook(page, (h) => [h.graph.order, h.graph.size])).toEqual([graph.nodes.length, graph.edges.length]);
    expect(graph.nodes.length).toBeGreaterThan(100);
    const pixels = await hook(page, (h) => h.graph.layer.pixels());
    // Nodes and edges both put colour on their canvases.
    expect(pixels.nodes).toBeGreaterThan(1_000);
    expect(pixels.edges).toBeGreaterThan(1_000);
    // The colour switch recolours by spectral cluster: a tool in no cluster turns grey.
    const lone = graph.nodes.find((n: { cluster: number }) => n.cluster === -1)?.name as string | undefined;
    if (lone !== undefined) {
      await page.check('#colour-cluster');
      expect(await page.evaluate((name) => (globalThis as any).__toolgraph.graph.layer.graph.getNodeAttribute(name, 'color'), lone)).toBe('#9aa0a6');
    }
    expect(errors).toEqual([]);
    await page.close();
  });

  it('lists the successors of a tool selected by name or by a click on the canvas', async () => {
    const { page, errors } = await openPage(browser, `${server.url}/#graph`);
    await graphDrawn(page);
    const graph = await api('/v1/graph');
    const from = graph.edges[0].from as string;
    const expected = (await api(`/v1/graph/tools/${encodeURIComponent(from)}?limit=25`)).successors.map((s: { to: string }) => s.to);
    expect(expected.length).toBeGreaterThan(0);
    await page.fill('#graph-search', from);
    await page.press('#graph-search', 'Enter');
    const listed = async (): Promise<string[]> => {
      await page.waitForSelector('.selection table.neighbours');
      return page.$$eval('.selection table.neighbours:first-of-type tbody tr td:first-child button', (buttons) => buttons.map((b) => b.textContent ?? ''));
    };
    expect(await listed()).toEqual(expected);
    expect(await page.textContent('.selection h3')).toBe(from);
    await screenshot(page, 'dashboard-graph-selected');

    // A click on another tool's node, where sigma draws it.
    const other = graph.edges.find((e: { from: string }) => e.from !== from).from as string;
    await page.click('.selection button:text("Clear selection")');
    await page.evaluate(() => (globalThis as any).__toolgraph.graph.layer.sigma.getCamera().setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 }));
    await page.waitForTimeout(100);
    const at = await page.evaluate((name) => {
      const { sigma, graph } = (globalThis as any).__toolgraph.graph.layer;
      return sigma.graphToViewport(graph.getNodeAttributes(name));
    }, other);
    const box = (await page.locator('.graph-canvas').boundingBox())!;
    await page.mouse.click(box.x + at.x, box.y + at.y);
    await page.waitForFunction((name) => document.querySelector('.selection h3')?.textContent === name, other);
    const expectedOther = (await api(`/v1/graph/tools/${encodeURIComponent(other)}?limit=25`)).successors.map((s: { to: string }) => s.to);
    expect(await listed()).toEqual(expectedOther);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('answers the ask form with ranked items and their breakdowns, no-match verdicts and a layered workflow', async () => {
    const { page, errors } = await openPage(browser, `${server.url}/#ask`);
    const context = ['SkyScrapperSearchAirport'];
    await page.fill('#ask-text', 'flights from New York to London');
    await page.fill('#ask-context', context.join(', '));
    await page.click('#view-ask button[type=submit]');
    await page.waitForSelector('.ranked-item');
    const expected = await api('/v1/predict', { context, intent: 'flights from New York to London', k: 5 });
    const items = page.locator('.ranked-item');
    expect(await items.count()).toBe(expected.items.length);
    const first = expected.items[0];
    expect(await items.first().locator('.tool').textContent()).toContain(first.tool);
    // One bar per signal that is not 0, as long as its value.
    const shown = Object.entries(first.signals as Record<string, number>).filter(([, v]) => v !== 0);
    const bars = items.first().locator('.signal .bar');
    expect(await bars.count()).toBe(shown.length);
    const [name, value] = shown[0]!;
    const widths = await items.first().locator('.signal').first().evaluate((row) => {
      const bar = row.querySelector('.bar')!.getBoundingClientRect().width;
      const fill = row.querySelector('.fill')!.getBoundingClientRect().width;
      return { label: row.querySelector('.name')!.textContent, share: fill / bar };
    });
    expect(widths.label).toBe(name);
    expect(widths.share).toBeCloseTo(Math.min(1, value), 2);
    await screenshot(page, 'dashboard-ask');

    await page.check('#ask-search');
    await page.fill('#ask-context', '');
    await page.fill('#ask-text', 'zebra xylophone');
    await page.click('#view-ask button[type=submit]');
    await page.waitForSelector('.verdict');
    expect(await page.textContent('.verdict strong')).toBe('No match');
    expect(await page.$$eval('.verdict code', (c) => c.map((x) => x.textContent))).toEqual(['zebra', 'xylophone']);
    expect(await page.textContent('.verdict .hint')).toContain('no tool fits');

    await page.check('#ask-dag');
    await page.fill('#ask-text', 'find flights to Rome and a hotel');
    await page.click('#view-ask button[type=submit]');
    await page.waitForSelector('svg.dag');
    const dag = await api('/v1/dag', { intent: 'find flights to Rome and a hotel' });
    expect(await page.locator('svg.dag g.dag-node').count()).toBe(dag.nodes.length);
    expect(await page.locator('svg.dag path.dag-edge').count()).toBe(dag.edges.length);
    expect(await page.textContent('#view-ask .answer strong')).toBe(dag.status);
    await screenshot(page, 'dashboard-ask-dag');
    expect(errors).toEqual([]);
    await page.close();
  });

  it("draws a pattern's radar and trend, and an approval moves the radar", async () => {
    const { page, errors } = await openPage(browser, `${server.url}/#patterns`);
    await page.waitForSelector('.pattern-list tbody tr');
    const pattern = (await api('/v1/patterns', { limit: 100 })).patterns[3];
    await page.click(`.pattern-list button[data-id="${pattern.id}"]`);
    await page.waitForSelector('.pattern-detail svg.radar');
    const radar = async (): Promise<number[]> => (await page.getAttribute('.pattern-detail .radar-value', 'data-values'))!.split(',').map(Number);
    const before = await radar();
    expect(before).toEqual([pattern.confidence.frequency, pattern.confidence.effectiveness, pattern.confidence.human]);
    expect(await page.locator('.pattern-detail svg.trend').count()).toBe(1);
    expect(await page.locator('.pattern-detail svg.trend circle').count()).toBe(0);

    await page.click('.pattern-detail button.approve');
    await page.waitForFunction(() => document.querySelectorAll('.pattern-detail svg.trend circle').length === 1);
    const after = await radar();
    const reviewed = await api(`/v1/patterns/${encodeURIComponent(pattern.id)}`);
    expect(after).toEqual([reviewed.confidence.frequency, reviewed.confidence.effectiveness, reviewed.confidence.human]);
    expect(reviewed.approvals).toBe(pattern.approvals + 1);
    expect(after[2]).toBeGreaterThan(before[2]!);
    // The polygon's human vertex sits at its value along the human axis, from the centre to the rim.
    const human = await page.evaluate(() => {
      const axis = document.querySelectorAll('.pattern-detail .radar-axis')[2];
      const [cx, cy, rx, ry] = ['x1', 'y1', 'x2', 'y2'].map((a) => Number(axis.getAttribute(a))) as [number, number, number, number];
      const [vx, vy] = document.querySelector('.pattern-detail .radar-value').getAttribute('points').split(' ')[2].split(',').map(Number);
      return Math.hypot(vx - cx, vy - cy) / Math.hypot(rx - cx, ry - cy);
    });
    expect(human).toBeCloseTo(after[2]!, 2);
    expect(await page.textContent('.pattern-detail .composite strong')).toBe(String(Number(reviewed.confidence.composite.toFixed(3))));
    await screenshot(page, 'dashboard-patterns');
    expect(errors).toEqual([]);
    await page.close();
  });

  it("draws a session's budget bar as wide as its cents left over its budget", async () => {
    const { page, errors } = await openPage(browser, `${server.url}/#sessions`);
    await page.fill('#session-intent', 'find flights from New York to London on August 15 and hotels in London');
    await page.selectOption('#session-mode', 'adaptive');
    await page.fill('#session-budget', '20');
    await page.click('.session-start button[type=submit]');
    await page.waitForSelector('article.session');
    const id = (await page.getAttribute('article.session', 'data-id'))!;
    const started = await api(`/v1/sessions/${id}`);
    expect(started.budget.centsLeft).toBe(20);
    await page.fill('article.session .step-form input[type=text]', started.plan.nodes[0].tool);
    await page.click('article.session .step-form button[type=submit]');
    await page.waitForSelector('article.session .timeline .name:text("budget.usage")');
    const session = await api(`/v1/sessions/${id}`);
    const share = session.budget.centsLeft / session.budget.budgetCents;
    expect(share).toBeLessThan(1);
    expect(share).toBeGreaterThan(0);
    const drawn = await page.locator('article.session .budget-bar').evaluate((bar) => {
      const fill = bar.querySelector('.fill')!.getBoundingClientRect().width;
      return { fill, track: bar.clientWidth };
    });
    expect(Math.abs(drawn.fill - share * drawn.track)).toBeLessThan(1);
    expect(await page.getAttribute('article.session .budget-bar', 'aria-valuenow')).toBe(String(session.budget.centsLeft));
    expect(await page.textContent('article.session table.tiers')).toContain('thinker');
    await screenshot(page, 'dashboard-sessions');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('reaches every view from the keyboard', async () => {
    const { page, errors } = await openPage(browser, `${server.url}/`);
    await graphDrawn(page);
    // The skip link first, then the tab of the view shown.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-graph');
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      const view = await hook(page, (h) => h.view);
      seen.push(view);
      expect(await page.getAttribute(`#tab-${view}`, 'aria-selected')).toBe('true');
      expect(await page.isVisible(`#view-${view}`)).toBe(true);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe(`tab-${seen[seen.length - 1]}`);
      await page.keyboard.press('ArrowRight');
    }
    expect(seen).toEqual(['graph', 'ask', 'patterns', 'sessions', 'health']);
    expect(await hook(page, (h) => h.view)).toBe('graph'); // wrapped around
    await page.keyboard.press('End');
    expect(await hook(page, (h) => h.view)).toBe('health');
    await page.keyboard.press('Home');
    expect(await hook(page, (h) => h.view)).toBe('graph');
    // Tab leaves the tab list for the view's panel.
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('[role=tabpanel]')?.id)).toBe('view-ask');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('asks for the token when a write is refused, and writes with it', async () => {
    const { page } = await openPage(browser, `${guarded.url}/#patterns`);
    await page.waitForSelector('.pattern-list tbody tr');
    const pattern = (await api('/v1/patterns', { limit: 100 })).patterns[5];
    await page.click(`.pattern-list button[data-id="${pattern.id}"]`);
    await page.waitForSelector('.pattern-detail svg.radar');
    await page.click('.pattern-detail button.approve');
    await page.waitForSelector('.feedback-message [role=alert]');
    expect(await page.textContent('.feedback-message [role=alert]')).toContain('token');
    expect((await api(`/v1/patterns/${encodeURIComponent(pattern.id)}`)).approvals).toBe(pattern.approvals);
    await page.fill('#token', TOKEN);
    await page.press('#token', 'Enter');
    await page.click('.pattern-detail button.approve');
    await page.waitForFunction(() => document.querySelectorAll('.pattern-detail svg.trend circle').length === 1);
    expect((await api(`/v1/patterns/${encodeURIComponent(pattern.id)}`)).approvals).toBe(pattern.approvals + 1);
    await page.close();
  });

  it('loads every view of an empty store with no console error', async () => {
    const empty = await startHttpServer(inMemoryService(new Toolgraph({ rebuildDelayMs: 5 })), { port: 0, host: '127.0.0.1' }, { dashboard: dir });
    try {
      const { page, errors } = await openPage(browser, `${empty.url}/`);
      await graphDrawn(page);
      expect(await hook(page, (h) => [h.graph.order, h.graph.size])).toEqual([0, 0]);
      expect(await page.textContent('#view-graph .summary')).toContain('0 of 0 tools');
      for (const view of ['ask', 'patterns', 'sessions', 'health']) await page.click(`#tab-${view}`);
      await page.click('#tab-patterns');
      await page.waitForSelector('#view-patterns .pattern-list p');
      expect(await page.textContent('#view-patterns .pattern-list p')).toBe('No pattern yet.');
      await page.click('#tab-ask');
      await page.fill('#ask-text', 'anything');
      await page.click('#view-ask button[type=submit]');
      await page.waitForSelector('#view-ask .answer');
      expect(await page.textContent('#view-ask .verdict strong')).toBe('The graph is empty');
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await empty.close();
    }
  });

  it("keeps the page's files within 1 MB gzipped", async () => {
    const total = files.reduce((sum, f) => sum + f.gzipBytes, 0);
    expect(total).toBeLessThanOrEqual(SIZE_BUDGET);
    const { page } = await openPage(browser, `${server.url}/`);
    const encodings = await page.evaluate(async () => {
      const r = await fetch('/assets/dashboard.js');
      return { type: r.headers.get('content-type'), ok: r.ok };
    });
    expect(encodings).toEqual({ type: 'text/javascript; charset=utf-8', ok: true });
    await page.close();
  });
});
