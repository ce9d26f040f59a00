import { describe, expect, it } from 'vitest';
import type { IntentRecord } from '../../src/graph/transition-graph.js';
import { clauseOrderEvidence, clauseOrderLogOdds, clausePositions, clausePositionsIn, sameWord, SAMPLE_RECORDS } from '../../src/text/clause-order.js';
import { clauseParts, splitClauses } from '../../src/text/clauses.js';
import { identifierTokens } from '../../src/text/tokenize.js';

const names = ['appliance_repair_cancellation', 'appliance_repair_rescheduling', 'hotel_booking', 'hotel_booking_query'];
const nameTerms = names.map((n) => [...new Set(identifierTokens(n))]);

function record(intent: string, tools: readonly number[]): IntentRecord {
  return { intent, tools, sequence: tools };
}

describe('clause order', () => {
  it('matches a word, or a stem of five letters or more that starts the other word', () => {
    expect(sameWord('cancel', 'cancel')).toBe(true);
    expect(sameWord('cancel', 'cancellation')).toBe(true);
    expect(sameWord('modification', 'modifi')).toBe(true);
    expect(sameWord('book', 'booklet')).toBe(false); // four letters: too short to stand for more
    expect(sameWord('cancel', 'cancer')).toBe(false);
  });

  it('places each tool in the clause holding most of its own name terms', () => {
    const clauses = splitClauses('Please reschedule the repair visit to Saturday, and cancel the old appointment');
    // `repair` and `applianc` are shared, so only `cancellation` and `reschedul` place them.
    expect(Array.from(clausePositions(clauses, [nameTerms[0]!, nameTerms[1]!]))).toEqual([1, 0]);
    // hotel_booking has no term of its own beside hotel_booking_query: it is not placed.
    expect(Array.from(clausePositions(splitClauses('query my hotel booking, then book a hotel'), [nameTerms[2]!, nameTerms[3]!]))).toEqual([-1, 0]);
    // A tie goes to the earliest clause; a tool named nowhere is not placed.
    expect(Array.from(clausePositions(splitClauses('cancel it. cancel it again'), [nameTerms[0]!, nameTerms[1]!]))).toEqual([0, -1]);
  });

  it('places a tool in a clause that recounts what is done only where no clause that asks names it', () => {
    const alarms = ['clock_alarm_cancel', 'clock_alarm_set'].map((n) => [...new Set(identifierTokens(n))]);
    const request = clauseParts('I have set a daily alarm for 7:30, please cancel this alarm and set a new one for 7:00');
    // The tokens alone place `set` in the first clause, the earliest that holds it, before the cancellation.
    expect(Array.from(clausePositions(request.map((c) => c.tokens), alarms))).toEqual([1, 0]);
    // The first clause recounts: `set` is the third clause's step, after the cancellation.
    expect(Array.from(clausePositionsIn(request, alarms))).toEqual([1, 2]);
    // A tool only a recounting clause names is still placed there.
    expect(Array.from(clausePositionsIn(clauseParts('I have set an alarm for 7:30, please cancel it'), alarms))).toEqual([1, 0]);
  });

  it('places a tool that two clauses name equally in one no other tool holds alone', () => {
    const alarms = ['clock_alarm_cancel', 'clock_alarm_set'].map((n) => [...new Set(identifierTokens(n))]);
    const request = splitClauses('first cancel the single alarm set for 8 this morning, and then set a daily alarm for 7:30');
    // `set` is in both clauses, `cancel` in the first only: the set is the second clause's step.
    expect(Array.from(clausePositions(request, alarms))).toEqual([0, 1]);
    expect(Array.from(clausePositions(request, alarms, undefined, 'earliest'))).toEqual([0, 0]);
    // Where every tied clause is another tool's, the earliest.
    const three = [...alarms, [...new Set(identifierTokens('clock_alarm_change'))]];
    expect(Array.from(clausePositions(splitClauses('cancel the alarm set for 8, and change the alarm set for 9'), three))).toEqual([0, 0, 1]);
    // Two tools tied between the same clauses, neither alone anywhere: both the earliest.
    expect(Array.from(clausePositions(splitClauses('cancel or set it, then cancel or set it'), alarms))).toEqual([0, 0]);
  });

  it('counts the recorded pairs whose clause order is or is not their run order, once per record', () => {
    const records: IntentRecord[] = [
      record('cancel the repair, then reschedule it', [0, 1]), // agrees
      record('reschedule the repair after you cancel it', [0, 1]), // run order cancel first: disagrees
      record('fix my washer', [0, 1]), // names neither: no evidence
      record('cancel the repair', [0]), // one tool: no pair
    ];
    expect(clauseOrderEvidence(records, records.length, nameTerms)).toMatchObject({ agree: 1, disagree: 1 });
    // Later records extend the same tally; the records before `upTo` only.
    records.push(record('cancel the visit and reschedule', [0, 1]), record('reschedule, and cancel', [1, 0]));
    expect(clauseOrderEvidence(records, records.length - 1, nameTerms)).toMatchObject({ agree: 2, disagree: 1 });
    expect(clauseOrderEvidence(records, records.length, nameTerms)).toMatchObject({ agree: 3, disagree: 1 });
    // Another records array (a restored graph) has a tally of its own.
    expect(clauseOrderEvidence([records[1]!], 1, nameTerms)).toMatchObject({ agree: 0, disagree: 1 });
    expect(clauseOrderLogOdds({ agree: 3, disagree: 1 })).toBeCloseTo(Math.log(2));
    expect(clauseOrderLogOdds({ agree: 0, disagree: 0 })).toBe(0);
  });

  it(`stops after ${SAMPLE_RECORDS} records of two tools or more`, () => {
    const records = Array.from({ length: 2 * SAMPLE_RECORDS + 100 }, (_, i) => record('cancel the repair, then reschedule it', i % 2 === 0 ? [0, 1] : [0]));
    expect(clauseOrderEvidence(records, records.length, nameTerms)).toMatchObject({ agree: SAMPLE_RECORDS, disagree: 0 }); // single-tool records do not count
  });
});
