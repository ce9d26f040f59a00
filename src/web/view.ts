/**
 * What every view of the dashboard is to the shell (main.ts): a tab and a panel it fills once,
 * told when it is shown (with the rest of the address, `#patterns/<id>`) and hidden.
 */
import type { GraphLayer } from './graph-layer.js';

export interface App {
  /** Tool names the graph view loaded, for the forms' suggestions. */
  toolNames(): readonly string[];
  setToolNames(names: readonly string[]): void;
  /** Shows view `id`, with `arg` after a slash in the address. */
  go(id: string, arg?: string): void;
  readonly hook: TestHook;
}

export interface View {
  readonly id: string;
  readonly title: string;
  mount(panel: HTMLElement, app: App): void;
  show(arg: string | undefined): void;
  hide(): void;
}

/**
 * What the page tells a test driving it (`window.__toolgraph`): the view shown, and the graph
 * layer's state, which a canvas does not show to the DOM.
 */
export interface TestHook {
  view: string;
  graph: {
    /** Nodes and edges of the graph sigma draws. */
    order: number;
    size: number;
    /** ms from navigation start to the first frame after sigma's first drawing, once drawn. */
    firstDrawMs: number | null;
    layer: GraphLayer | null;
  };
}
