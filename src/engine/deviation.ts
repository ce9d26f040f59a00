/**
 * Topic deviation of a step (spec 002, "Detección de Desvíos"). From the step's text, the
 * spec's algorithm: the objective's words longer than three characters, and the share of them
 * the response contains,
 *
 *   matchRatio = |{w in objectiveWords : response contains w}| / max(1, |objectiveWords|)
 *   ON_TOPIC at matchRatio >= 0.3, VAGUE at >= 0.1, OFF_TOPIC below
 *
 * `seed` is the spec's code as written: the objective lower-cased and split on whitespace, the
 * response searched as it is, so "Flights" never matches "flights" and "London." never matches
 * anything. `default` lower-cases the response too and strips the punctuation around the
 * objective's words (docs/decisions/sessions.md measures both on UltraTool's step texts).
 *
 * From the graph: a tool off the plan that neither the graph's prediction nor a search of the
 * intent ranks is one the intent does not cover, OFF_TOPIC whatever the text says. The step's
 * class is the worse of the two. O(|objective| x |response|).
 */

export type TopicDeviation = 'ON_TOPIC' | 'VAGUE' | 'OFF_TOPIC';

export const DEVIATION_THRESHOLDS = { onTopic: 0.3, vague: 0.1 } as const;

function classify(matchRatio: number): TopicDeviation {
  if (matchRatio >= DEVIATION_THRESHOLDS.onTopic) return 'ON_TOPIC';
  if (matchRatio >= DEVIATION_THRESHOLDS.vague) return 'VAGUE';
  return 'OFF_TOPIC';
}

/** The objective's words the rule counts, and the text they are looked for in. */
function words(response: string, objective: string, profile: 'default' | 'seed'): { wanted: string[]; text: string } {
  if (profile === 'seed') return { wanted: objective.toLowerCase().split(/\s+/).filter((w) => w.length > 3), text: response };
  const wanted = objective
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter((w) => w.length > 3);
  return { wanted, text: response.toLowerCase() };
}

export interface TextDeviation {
  readonly deviation: TopicDeviation;
  readonly matchRatio: number;
  /** The objective's counted words the response lacks. */
  readonly missing: readonly string[];
}

export function detectTopicDeviation(response: string, objective: string, profile: 'default' | 'seed' = 'default'): TextDeviation {
  const { wanted, text } = words(response, objective, profile);
  const missing: string[] = [];
  let matches = 0;
  for (const w of wanted) {
    if (text.includes(w)) matches++;
    else missing.push(w);
  }
  const matchRatio = matches / Math.max(1, wanted.length);
  return { deviation: classify(matchRatio), matchRatio, missing: [...new Set(missing)] };
}

const SEVERITY: Readonly<Record<TopicDeviation, number>> = { ON_TOPIC: 0, VAGUE: 1, OFF_TOPIC: 2 };

/** The worse of the text's class (null: the step had no text) and the graph's view. */
export function stepDeviation(text: TopicDeviation | null, covered: boolean): TopicDeviation {
  const graph: TopicDeviation = covered ? 'ON_TOPIC' : 'OFF_TOPIC';
  if (text === null) return graph;
  return SEVERITY[text] >= SEVERITY[graph] ? text : graph;
}
