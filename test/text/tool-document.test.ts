import { describe, expect, it } from 'vitest';
import { toolDocument } from '../../src/text/tool-document.js';
import { isToolgraphError } from '../../src/schema/errors.js';
import type { ToolInfo } from '../../src/schema/types.js';

const TOOL: ToolInfo = {
  name: 'clock_alarm_cancel',
  description: 'Cancel an alarm',
  params: [
    { name: 'alarmId', type: 'string', description: 'The alarm to cancel', required: true },
  ],
};

describe('toolDocument', () => {
  it('repeats the name three times, then description, parameter names and descriptions', () => {
    expect(toolDocument(TOOL)).toEqual([
      'clock', 'alarm', 'cancel',
      'clock', 'alarm', 'cancel',
      'clock', 'alarm', 'cancel',
      'cancel', 'alarm', // description; "an" is a stop word
      'alarm', 'id', 'alarmid', // parameter name, split like an identifier
      'alarm', 'cancel', // parameter description
    ]);
  });

  it('honours nameWeight and paramDescriptions', () => {
    expect(toolDocument(TOOL, { nameWeight: 1, paramDescriptions: false })).toEqual([
      'clock', 'alarm', 'cancel', 'cancel', 'alarm', 'alarm', 'id', 'alarmid',
    ]);
  });

  it('makes a tool without a catalogue entry a document of its name only', () => {
    expect(toolDocument({ name: 'getWeather', description: '', params: [] }, { nameWeight: 1 })).toEqual([
      'get', 'weather', 'getweather',
    ]);
    // A name of stop words still yields a document.
    expect(toolDocument({ name: 'do_it', description: '', params: [] }, { nameWeight: 1 })).toEqual(['do', 'it']);
  });

  it('changes term frequencies, not the set of terms, with the name weight', () => {
    const one = toolDocument(TOOL, { nameWeight: 1 });
    const five = toolDocument(TOOL, { nameWeight: 5 });
    expect(new Set(five)).toEqual(new Set(one));
    expect(five.length - one.length).toBe(4 * 3);
  });

  it('rejects a name weight that is not a positive integer', () => {
    for (const nameWeight of [0, -1, 1.5, Number.NaN]) {
      try {
        toolDocument(TOOL, { nameWeight });
        throw new Error('expected a ToolgraphError');
      } catch (error) {
        expect(isToolgraphError(error) && error.code).toBe('INVALID_INPUT');
      }
    }
  });
});
