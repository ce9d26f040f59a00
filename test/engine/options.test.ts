import { describe, expect, it } from 'vitest';
import { parseSessionOptions, sessionOptionsFromEnv, SPEC_TIERS } from '../../src/engine/options.js';
import { expectCode } from '../helpers/expect-code.js';

describe('session options', () => {
  it("default to spec 002's constants", () => {
    const o = parseSessionOptions({});
    expect(o).toMatchObject({ budgetCents: 100, maxEscalations: 5, thresholdCents: 10, economyCents: 5, tiers: SPEC_TIERS, targetPrecision: 0.95, idleMs: 1_800_000, debug: false, calibrate: true });
    expect(o.model).toEqual({ timeoutMs: 20_000, maxCompletionTokens: 512, tokenField: 'max_completion_tokens', jsonMode: true });
  });

  it('read the spec variables and the endpoint from the environment', () => {
    const o = sessionOptionsFromEnv({
      SESSION_BUDGET_CENTS: '40',
      MAX_ESCALATIONS_PER_SESSION: '3',
      ESCALATION_THRESHOLD_CENTS: '4',
      THINKER_MODEL: 'o4-mini',
      CHEAP_MODEL: 'small',
      ENGINE_DEBUG: 'true',
      TOOLGRAPH_LLM_URL: 'http://127.0.0.1:9/v1',
      TOOLGRAPH_LLM_KEY: 'k',
      TOOLGRAPH_SESSION_IDLE_MS: '60000',
    });
    expect(o).toMatchObject({ budgetCents: 40, maxEscalations: 3, thresholdCents: 4, debug: true, idleMs: 60_000 });
    expect(o.tiers.thinker).toEqual({ model: 'o4-mini', usdPer1kTokens: 0.025 });
    expect(o.tiers.cheap.model).toBe('small');
    expect(o.model).toMatchObject({ url: 'http://127.0.0.1:9/v1', key: 'k' });
    expect(sessionOptionsFromEnv({ TOOLGRAPH_LLM_URL: '  ' }).model.url).toBeUndefined();
  });

  it('name the variable that is wrong', () => {
    expectCode(() => sessionOptionsFromEnv({ SESSION_BUDGET_CENTS: 'lots' }), 'INVALID_INPUT', 'SESSION_BUDGET_CENTS: expected a number');
    expectCode(() => sessionOptionsFromEnv({ SESSION_BUDGET_CENTS: '-5' }), 'INVALID_INPUT', 'SESSION_BUDGET_CENTS (session option budgetCents)');
    expectCode(() => sessionOptionsFromEnv({ TOOLGRAPH_LLM_URL: 'ftp://x' }), 'INVALID_INPUT', 'TOOLGRAPH_LLM_URL');
    expectCode(() => sessionOptionsFromEnv({ ENGINE_DEBUG: 'maybe' }), 'INVALID_INPUT', 'ENGINE_DEBUG: expected true or false');
    expectCode(() => parseSessionOptions({ budget: 3 }), 'INVALID_INPUT', 'sessions');
  });
});
