import { describe, expect, it } from 'vitest';
import { catalogueTokens, identifierTokens, MEMO_LIMIT, splitIdentifier, tokenize, tokenizeByWord } from '../../src/text/tokenize.js';

/** mulberry32: a local seeded generator, so the fuzz cases are the same on every run. */
function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

describe('tokenize: identifiers', () => {
  it('splits camelCase and acronyms, keeping the whole word as well', () => {
    // get|HTTP|Response: lower->upper boundary, then acronym end before "Re"; `response` stems
    // to `respons` (Porter step 5: final e dropped when m > 1).
    expect(tokenize('getHTTPResponse')).toEqual(['get', 'http', 'respons', 'gethttprespons']);
    expect(tokenize('XMLHttpRequest')).toEqual(['xml', 'http', 'request', 'xmlhttprequest']);
    expect(tokenize('SkyScrapperFlightSearch')).toEqual([
      'sky', 'scrapper', 'flight', 'search', 'skyscrapperflightsearch',
    ]);
  });

  it('splits a word at its first capital after another character, wherever the plain-word fast path stops', () => {
    // Plain words (a capital first letter at most) are lower-cased whole; one more capital, or a
    // capital after a digit, is a boundary.
    expect(tokenize('Find flights Rome2')).toEqual(['find', 'flight', 'rome2']);
    expect(tokenize('RomeParis 2Go aB AB')).toEqual(['rome', 'pari', 'romepari', '2', 'go', '2go', 'b', 'ab', 'ab']); // 'a' is a stop word
    expect(tokenize('Éclair CAFÉ')).toEqual(['eclair', 'cafe']);
  });

  it('splits on _ : . / - and whitespace', () => {
    expect(tokenize('clock_alarm_cancel')).toEqual(['clock', 'alarm', 'cancel']);
    expect(tokenize('weather.forecast:daily/city-name')).toEqual([
      'weather', 'forecast', 'daili', 'citi', 'name',
    ]);
  });

  it('keeps letters and digits together inside a word', () => {
    expect(tokenize('mp3Player base64 utf8')).toEqual(['mp3', 'player', 'mp3player', 'base64', 'utf8']);
  });

  it('treats Object.prototype keys as ordinary words', () => {
    // `has` and `own` are stop words; the compound `hasownproperty` is not.
    expect(tokenize('__proto__ constructor hasOwnProperty toString')).toEqual([
      'proto', 'constructor', 'properti', 'hasownproperti', 'string', 'tostr',
    ]);
  });
});

describe('tokenize: stop words and stemming', () => {
  it('drops stop words, including request filler', () => {
    expect(tokenize('Please can you find the weather in Paris for me?')).toEqual([
      'find', 'weather', 'pari',
    ]);
    expect(tokenize('it is what it is')).toEqual([]);
    expect(tokenize('')).toEqual([]);
  });

  it('stems as Porter (1980) step 1 followed by step 5', () => {
    // Porter's own step-1 examples (Program 14(3), 1980), then step 5: caresses -> caress,
    // ponies -> poni (Porter2 -ies rule), ties -> tie, cats -> cat, feed -> feed, agreed -> agree
    // -> agre (5a), plastered -> plaster, bled -> bled, motoring -> motor, sing -> sing,
    // conflated -> conflate -> conflat (5a), sized -> size (m = 1 and *o keeps e), hopping -> hop,
    // tanned -> tan, falling -> fall, hissing -> hiss, fizzed -> fizz, failing -> fail,
    // filing -> file, happy -> happi (1c), controlling -> control (5b).
    const words = 'caresses ponies ties cats feed agreed plastered bled motoring sing conflated sized hopping tanned falling hissing fizzed failing filing happy controlling';
    expect(tokenize(words)).toEqual([
      'caress', 'poni', 'tie', 'cat', 'feed', 'agre', 'plaster', 'bled', 'motor', 'sing',
      'conflat', 'size', 'hop', 'tan', 'fall', 'hiss', 'fizz', 'fail', 'file', 'happi', 'control',
    ]);
  });

  it('maps the inflections of one word to one stem', () => {
    expect(new Set(tokenize('query queries queried'))).toEqual(new Set(['queri']));
    expect(new Set(tokenize('create creates created creating'))).toEqual(new Set(['creat']));
    expect(new Set(tokenize('file files filed filing'))).toEqual(new Set(['file']));
    expect(new Set(tokenize('book books booked booking'))).toEqual(new Set(['book']));
  });

  it('is conservative: no derivational suffixes, short words untouched', () => {
    // Porter steps 2-4 would merge general/generate and relational/relate; they are not applied.
    expect(tokenize('general generate relational')).toEqual(['general', 'generat', 'relational']);
    expect(tokenize('gas bus news')).toEqual(['gas', 'bus', 'new']);
    expect(tokenize('sky')).toEqual(['sky']);
  });
});

describe('tokenize: Unicode', () => {
  it('folds Latin diacritics and full-width forms', () => {
    expect(tokenize('Café naïve İstanbul')).toEqual(['cafe', 'naiv', 'istanbul']);
    expect(tokenize('ＡＢＣ ﬁle')).toEqual(['abc', 'file']);
  });

  it('keeps words of other scripts whole, with their combining marks', () => {
    expect(tokenize('हिन्दी भाषा')).toEqual(['हिन्दी', 'भाषा']);
    expect(tokenize('Привет МИР')).toEqual(['привет', 'мир']);
    expect(tokenize('straße')).toEqual(['straße']);
  });

  it('cuts Han and kana runs into bigrams, a lone character into a unigram', () => {
    // Lucene CJKBigramFilter: 天气预报 -> 天气 气预 预报.
    expect(tokenize('天气预报')).toEqual(['天气', '气预', '预报']);
    expect(tokenize('API接口 东')).toEqual(['api', '接口', '东']);
  });
});

describe('tokenize: invariants', () => {
  const alphabet = ['a', 'B', 'c', 'É', '_', '-', '.', ':', '/', ' ', '1', 'Z', 'ing', 'ed', 's', '天', 'é', 'X', 'y', '\u0301'];
  const next = rng(7);
  const samples: string[] = [];
  for (let i = 0; i < 300; i++) {
    let s = '';
    const len = Math.floor(next() * 30);
    for (let j = 0; j < len; j++) s += alphabet[Math.floor(next() * alphabet.length)]!;
    samples.push(s);
  }

  it('yields non-empty lower-case tokens of letters, marks and digits only', () => {
    for (const s of samples) {
      for (const token of tokenize(s)) {
        expect(token.length).toBeGreaterThan(0);
        expect(token).toBe(token.toLowerCase());
        expect(token).toMatch(/^[\p{L}\p{M}\p{N}]+$/u);
      }
    }
  });

  it('is deterministic and ignores separators', () => {
    for (const s of samples) {
      expect(tokenize(s)).toEqual(tokenize(s));
      expect(tokenize(s.replace(/[_\-.:/]/g, ' '))).toEqual(tokenize(s.replace(/[_\-.:/ ]/g, ' ')));
    }
  });
});

describe('splitIdentifier', () => {
  it('splits tool names like tokenize does', () => {
    expect(splitIdentifier('clock_alarm_cancel')).toEqual(['clock', 'alarm', 'cancel']);
    expect(splitIdentifier('fs/readFile')).toEqual(['fs', 'read', 'file', 'readfil']);
    expect(splitIdentifier('mcp::github.createIssue')).toEqual(['mcp', 'github', 'creat', 'issu', 'createissu']);
  });

  it('keeps a name made only of stop words, so no tool has an empty name', () => {
    expect(splitIdentifier('do_it')).toEqual(['do', 'it']);
    expect(splitIdentifier('this')).toEqual(['this']);
    expect(tokenize('do_it')).toEqual([]);
  });

  it('returns nothing for a name without letters or digits', () => {
    expect(splitIdentifier('__--::')).toEqual([]);
    expect(splitIdentifier('')).toEqual([]);
  });
});

describe('remembered catalogue tokens', () => {
  it('gives what tokenize and splitIdentifier give, the same array for the same text', () => {
    const text = 'Search flights between two airports';
    expect(catalogueTokens(text)).toEqual(tokenize(text));
    expect(catalogueTokens(text)).toBe(catalogueTokens(text));
    expect(identifierTokens('SkyScrapperFlightSearch')).toEqual(splitIdentifier('SkyScrapperFlightSearch'));
    // The two are different functions: a name of stop words keeps its words only as a name.
    expect(catalogueTokens('do it')).toEqual([]);
    expect(identifierTokens('do it')).toEqual(['do', 'it']);
  });

  it('stays bounded: past MEMO_LIMIT texts it starts again', () => {
    const first = catalogueTokens('bounded memo probe');
    for (let i = 0; i < MEMO_LIMIT; i++) catalogueTokens(`filler text ${i}`);
    const again = catalogueTokens('bounded memo probe');
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
  });
});

describe('tokenizeByWord', () => {
  it('groups the tokens by the word they came from, a stop word giving none', () => {
    expect(tokenizeByWord('open the valve on "CyJ9LBI7y"')).toEqual([['open'], ['valv'], ['cy', 'j9', 'lbi7y', 'cyj9lbi7y']]);
    // A run of Han characters is one word to the regex: its bigrams stay apart.
    expect(tokenizeByWord('预订北京 hotel')).toEqual([['预订'], ['订北'], ['北京'], ['hotel']]);
    expect(tokenizeByWord('the of and')).toEqual([]);
  });

  it('concatenates to tokenize on every input', () => {
    const alphabet = ['a', 'B', 'z', 'Q', '7', '0', ' ', ' ', '-', '_', '.', 'é', 'İ', '北', '京', 'カ', 'ﬁ', '\u0301', 'the', 'Of', 'HTTP', 'Json'];
    const next = rng(11);
    for (let i = 0; i < 2_000; i++) {
      let text = '';
      const length = Math.floor(next() * 30);
      for (let j = 0; j < length; j++) text += alphabet[Math.floor(next() * alphabet.length)];
      expect(tokenizeByWord(text).flat()).toEqual(tokenize(text));
    }
  });
});
