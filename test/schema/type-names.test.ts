import { describe, expect, it } from 'vitest';
import { isTypeName } from '../../src/schema/type-names.js';

describe('isTypeName', () => {
  it('takes names of kinds of value', () => {
    for (const type of ['Airport', 'FlightBooking', 'geo.Location', 'user_profile', 'Ort']) expect(isTypeName(type)).toBe(true);
  });

  it('refuses generic types, in any case or spelling, descriptions, unions and the empty string', () => {
    for (const type of ['string', 'String', 'str', 'int', 'Integer', 'number', 'float', 'bool', 'Boolean', 'object', 'array', 'List', 'dict', 'Enum', 'null', 'any', 'date_time', 'URL']) {
      expect(isTypeName(type), type).toBe(false);
    }
    for (const type of ['Date (yyyy-mm-dd)', 'string | null', 'list[str]', 'Array<Airport>', '', '2fa']) expect(isTypeName(type), type).toBe(false);
  });
});
