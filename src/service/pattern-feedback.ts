/**
 * People's verdicts on learned patterns, and the views of patterns with their evidence,
 * reliability and spec 004 confidence: a collaborator of the Toolgraph facade. The verdicts live
 * in a PatternRegistry; the observations, successes and failures are the graph's, read when a
 * view is asked for. The clock of pattern confidence is the newest of the graph's newest trace
 * and the latest verdict.
 *
 * The facade owns the model: after a verdict it rebuilds the model's per-edge feedback factors
 * from `humanScores` (a revision tells whether they are current).
 */
import type { EdgeReliabilityReport } from '../graph/edge-reliability.js';
import type { TransitionGraph } from '../graph/transition-graph.js';
import type { HumanPatternScore } from '../recommend/edge-adjustment.js';
import type { PatternConfidence } from '../scoring/confidence-state.js';
import { humanScore } from '../scoring/human-score.js';
import { ToolgraphError } from '../schema/errors.js';
import { parsePatternFeedback, parsePatternsRequest, parsePatternTarget, type PatternTarget } from '../schema/pattern-requests.js';
import { PatternRegistry, patternId, withDecision, type PatternDecision, type PatternRegistryState } from './pattern-registry.js';
import { patternConfidence, patternView, type PatternDetail, type PatternView } from './pattern-view.js';

/** What the verdicts are about: the graph (replaced by a restore, hence a getter) and its reliabilities. */
export interface PatternEvidence {
  graph(): TransitionGraph;
  reliability(from: string, to: string): EdgeReliabilityReport | null;
}

export class PatternFeedback {
  private readonly registry: PatternRegistry;
  /** Latest verdict time: with the newest trace, the clock of pattern confidence. */
  private clock = 0;

  constructor(
    private readonly evidence: PatternEvidence,
    state?: PatternRegistryState,
  ) {
    this.registry = new PatternRegistry(state);
    for (const p of this.registry.list()) for (const e of p.feedback) this.clock = Math.max(this.clock, e.at);
  }

  /** Moves with every verdict: the model's feedback factors are current at this revision. */
  get revision(): number {
    return this.registry.revision;
  }

  /** Records a verdict (the arguments of Toolgraph.patternFeedback); the pattern's tools. */
  record(pattern: unknown, decision: unknown, options: { readonly at?: number }): string[] {
    const request = parsePatternFeedback({ pattern, decision, ...options });
    const tools = this.resolve(request.pattern, 'patternFeedback');
    const at = request.at ?? Date.now();
    this.registry.record(tools, request.decision, at);
    this.clock = Math.max(this.clock, at);
    return tools;
  }

  /** Verdicts a store kept, in the order given; names unchecked (they were when recorded). */
  restore(entries: Iterable<{ readonly tools: readonly string[]; readonly decision: 'approve' | 'reject'; readonly at: number }>): void {
    for (const e of entries) {
      this.registry.record(e.tools, e.decision, e.at);
      this.clock = Math.max(this.clock, e.at);
    }
  }

  /** One pattern (a Toolgraph.pattern target) with its evidence, reliability and confidence. */
  pattern(target: unknown): PatternView {
    return this.view(this.resolve(parsePatternTarget(target, 'pattern'), 'pattern'));
  }

  /** `pattern(target)` with the verdicts people gave it, oldest first (the newest FEEDBACK_HISTORY_LIMIT). */
  detail(target: unknown): PatternDetail {
    const view = this.pattern(target);
    return { ...view, feedback: [...(this.registry.get(view.id)?.feedback ?? [])] };
  }

  /** The view of a pattern whose tools the graph knows. */
  view(tools: readonly string[]): PatternView {
    const { stats, now } = this.evidenceOf(tools);
    const reliability = tools.length === 2 && stats !== undefined ? this.evidence.reliability(tools[0]!, tools[1]!) : null;
    return patternView(tools, stats, this.registry.get(patternId(tools)), reliability, now);
  }

  /**
   * Reviewed patterns (every one with a verdict) and the most observed transitions (`limit`,
   * default 100; only those out of `from` when given), most observed first, ties in the order
   * the tools were first seen.
   */
  patterns(request: unknown): PatternView[] {
    const graph = this.evidence.graph();
    const { from, limit } = parsePatternsRequest(request);
    const fromIndex = from === undefined ? undefined : this.toolIndex(from, 'patterns');
    const seen = new Set<string>();
    const out: PatternView[] = [];
    for (const record of this.registry.list()) {
      if (from !== undefined && record.tools[0] !== from) continue;
      seen.add(record.id);
      out.push(this.view(record.tools));
    }
    const observed: { a: number; b: number; count: number }[] = [];
    graph.forEachTransition((a, b, stats) => {
      if (fromIndex === undefined || a === fromIndex) observed.push({ a, b, count: stats.count });
    });
    observed.sort((x, y) => y.count - x.count || x.a - y.a || x.b - y.b);
    for (const { a, b } of observed.slice(0, limit)) {
      const tools = [graph.names[a]!, graph.names[b]!];
      if (!seen.has(patternId(tools))) out.push(this.view(tools));
    }
    const order = (v: PatternView): number[] => v.tools.map((name) => graph.indexOf(name)!);
    return out.sort((x, y) => {
      if (y.observations !== x.observations) return y.observations - x.observations;
      const ox = order(x);
      const oy = order(y);
      for (let i = 0; i < Math.min(ox.length, oy.length); i++) if (ox[i] !== oy[i]) return ox[i]! - oy[i]!;
      return ox.length - oy.length;
    });
  }

  /** The spec 004 confidence state of a pattern, as it is or as it will be with `pending` (Toolgraph.patternConfidence). */
  confidence(target: unknown, pending?: { readonly decision: PatternDecision; readonly at: number }): { readonly tools: readonly string[]; readonly state: PatternConfidence } {
    const tools = this.resolve(parsePatternTarget(target, 'patternConfidence'), 'patternConfidence');
    const { stats, now } = this.evidenceOf(tools);
    const old = this.registry.get(patternId(tools));
    const record = pending === undefined ? old : withDecision(old, tools, pending.decision, pending.at);
    return { tools, state: patternConfidence(tools, stats, record, pending === undefined ? now : Math.max(now, pending.at)) };
  }

  /** The human score of every reviewed pattern whose tools the graph knows, for the model's feedback factors. */
  humanScores(): HumanPatternScore[] {
    const graph = this.evidence.graph();
    const scores: HumanPatternScore[] = [];
    for (const p of this.registry.list()) {
      const tools = p.tools.map((name) => graph.indexOf(name));
      if (tools.some((t) => t === undefined)) continue;
      scores.push({ tools: tools as number[], human: humanScore({ approvals: p.approvals, rejections: p.rejections, reflect: 'none' }) });
    }
    return scores;
  }

  state(): PatternRegistryState {
    return this.registry.toState();
  }

  private toolIndex(name: string, caller: string): number {
    const index = this.evidence.graph().indexOf(name);
    if (index === undefined) throw new ToolgraphError('UNKNOWN_TOOL', `${caller}: unknown tool ${JSON.stringify(name).slice(0, 200)}`);
    return index;
  }

  /** The tool names of a pattern target, each known to the graph. */
  private resolve(target: PatternTarget, caller: string): string[] {
    let tools: string[];
    if ('id' in target) {
      const found = this.registry.get(target.id)?.tools ?? this.findTransition(target.id);
      if (found === undefined) throw new ToolgraphError('NOT_FOUND', `${caller}: no pattern with id ${JSON.stringify(target.id).slice(0, 200)}`);
      tools = [...found];
    } else {
      tools = 'from' in target ? [target.from, target.to] : [...target.tools];
    }
    for (const name of tools) this.toolIndex(name, caller);
    return tools;
  }

  /** The observed transition with this id: O(transitions), only for ids never reviewed. */
  private findTransition(id: string): string[] | undefined {
    const graph = this.evidence.graph();
    let found: string[] | undefined;
    graph.forEachTransition((a, b) => {
      if (found !== undefined) return;
      const tools = [graph.names[a]!, graph.names[b]!];
      if (patternId(tools) === id) found = tools;
    });
    return found;
  }

  private evidenceOf(tools: readonly string[]) {
    const graph = this.evidence.graph();
    const ids = tools.map((name) => graph.indexOf(name)!);
    const stats = ids.length === 2 ? graph.transition(ids[0]!, ids[1]!) : graph.secondOrder(ids[0]!, ids[1]!, ids[2]!);
    return { stats, now: Math.max(graph.newest, this.clock) };
  }
}
