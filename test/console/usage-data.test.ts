import type { UsageHistory } from '../../console/src/contract';
import {
  axisLabel,
  CSV_HEADER,
  dayLabel,
  exportName,
  hourLabel,
  limitLine,
  yRange,
  stackedSeries,
  usageCsv,
  usageJson,
  usageRows,
  zoneLabel,
} from '../../console/src/usage-data';

/** Two hours and two days of a project with three operations, one of which has a name a spreadsheet would run. */
const HISTORY: UsageHistory = {
  readAt: '2031-03-04T05:06:07.123Z',
  operations: ['listPets', 'getPet', '=cmd'],
  limits: { perMinute: 60, perDay: 1_000 },
  hours: [
    { start: '2031-03-04T04:00:00.000Z', admitted: { listPets: 3, getPet: 2 }, refused: { listPets: 1 } },
    { start: '2031-03-04T05:00:00.000Z', admitted: { getPet: 4, '=cmd': 1 }, refused: {} },
  ],
  days: [
    { start: '2031-03-03T00:00:00.000Z', admitted: {}, refused: {} },
    {
      start: '2031-03-04T00:00:00.000Z',
      admitted: { listPets: 3, getPet: 6, '=cmd': 1 },
      refused: { getPet: 2, listPets: 1 },
    },
  ],
  refusedAreLowerBounds: true,
};

describe('the stacked series of a window', () => {
  it('stacks each operation on the ones before it and the refused on top, tallest first', () => {
    const series = stackedSeries(HISTORY.hours, HISTORY.operations, 'hours');
    expect(series.layers.map((layer) => [layer.kind, layer.label, layer.index, layer.values])).toEqual([
      ['refused', 'refused', 3, [6, 5]],
      ['admitted', '=cmd', 2, [5, 5]],
      ['admitted', 'getPet', 1, [5, 4]],
      ['admitted', 'listPets', 0, [3, 0]],
    ]);
    expect(series.highest).toBe(6);
  });

  it('puts each bar across its hour or day, and the range from the first start to the last end', () => {
    const hours = stackedSeries(HISTORY.hours, HISTORY.operations, 'hours');
    const at = (iso: string) => Date.parse(iso) / 1000;
    expect(hours.x).toEqual([at('2031-03-04T04:30:00Z'), at('2031-03-04T05:30:00Z')]);
    expect(hours.range).toEqual([at('2031-03-04T04:00:00Z'), at('2031-03-04T06:00:00Z')]);
    const days = stackedSeries(HISTORY.days, HISTORY.operations, 'days');
    expect(days.x).toEqual([at('2031-03-03T12:00:00Z'), at('2031-03-04T12:00:00Z')]);
    expect(days.range).toEqual([at('2031-03-03T00:00:00Z'), at('2031-03-05T00:00:00Z')]);
  });

  it('ignores counts of operations the history does not list, and is empty for no buckets', () => {
    const series = stackedSeries(
      [{ start: '2031-03-04T05:00:00.000Z', admitted: { other: 9, getPet: 1 }, refused: { other: 4 } }],
      ['getPet'],
      'hours',
    );
    expect(series.layers.map((layer) => layer.values)).toEqual([[1], [1]]);
    const empty = stackedSeries([], ['getPet'], 'days');
    expect({ x: empty.x, highest: empty.highest, values: empty.layers.map((layer) => layer.values) }).toEqual(
      {
        x: [],
        highest: 0,
        values: [[], []],
      },
    );
  });
});

describe('the limit lines', () => {
  it("draws the per-day limit on the days, and on the hours the per-minute limit times 60 unless the day's is lower", () => {
    expect(limitLine({ perMinute: 60, perDay: 1_000 }, 'days')).toBe(1_000);
    expect(limitLine({ perMinute: 60, perDay: 1_000 }, 'hours')).toBe(1_000);
    expect(limitLine({ perMinute: 300, perDay: 100_000 }, 'hours')).toBe(18_000);
  });
});

describe("a chart's y range", () => {
  it('reaches the limit when the bars reach a fifth of it, or when there are none', () => {
    expect(yRange(200, 1_000)).toEqual({ top: 1_080, limitShown: true });
    expect(yRange(1_200, 1_000)).toEqual({ top: 1_296, limitShown: true });
    expect(yRange(0, 1_000)).toEqual({ top: 1_080, limitShown: true });
  });

  it('stays near the bars of a quiet project, without the far-off line', () => {
    expect(yRange(199, 1_000)).toEqual({ top: 215, limitShown: false });
    expect(yRange(0, 0)).toEqual({ top: 1, limitShown: true });
  });
});

describe('the table rows', () => {
  it('has every operation in order (0 where absent), the admitted total and the refused total', () => {
    expect(usageRows(HISTORY.days, HISTORY.operations)).toEqual([
      { start: '2031-03-03T00:00:00.000Z', admitted: [0, 0, 0], admittedTotal: 0, refusedTotal: 0 },
      { start: '2031-03-04T00:00:00.000Z', admitted: [3, 6, 1], admittedTotal: 10, refusedTotal: 3 },
    ]);
  });
});

describe('the exports', () => {
  it('writes CSV with one line per hour or day and operation, hours first, CRLF, formulas defused', () => {
    const lines = usageCsv(HISTORY).split('\r\n');
    expect(lines).toEqual([
      CSV_HEADER.join(','),
      'hour,2031-03-04T04:00:00.000Z,listPets,3,1',
      'hour,2031-03-04T04:00:00.000Z,getPet,2,0',
      "hour,2031-03-04T04:00:00.000Z,'=cmd,0,0",
      'hour,2031-03-04T05:00:00.000Z,listPets,0,0',
      'hour,2031-03-04T05:00:00.000Z,getPet,4,0',
      "hour,2031-03-04T05:00:00.000Z,'=cmd,1,0",
      'day,2031-03-03T00:00:00.000Z,listPets,0,0',
      'day,2031-03-03T00:00:00.000Z,getPet,0,0',
      "day,2031-03-03T00:00:00.000Z,'=cmd,0,0",
      'day,2031-03-04T00:00:00.000Z,listPets,3,1',
      'day,2031-03-04T00:00:00.000Z,getPet,6,2',
      "day,2031-03-04T00:00:00.000Z,'=cmd,1,0",
      '',
    ]);
  });

  it('quotes a CSV cell with a comma or a quote', () => {
    const csv = usageCsv({
      ...HISTORY,
      operations: ['a,b', 'say "hi"'],
      hours: [{ start: '2031-03-04T05:00:00.000Z', admitted: { 'a,b': 1 }, refused: {} }],
      days: [],
    });
    expect(csv.split('\r\n').slice(1, 3)).toEqual([
      'hour,2031-03-04T05:00:00.000Z,"a,b",1,0',
      'hour,2031-03-04T05:00:00.000Z,"say ""hi""",0,0',
    ]);
  });

  it('writes JSON that is the answer as read, with its project', () => {
    expect(JSON.parse(usageJson('acme', HISTORY))).toEqual({ project: 'acme', ...HISTORY });
  });

  it('names the files by project and the moment read, without a colon', () => {
    expect(exportName('acme', HISTORY.readAt, 'csv')).toBe('usage-acme-2031-03-04T050607Z.csv');
    expect(exportName('acme', '2031-03-04T05:06:07Z', 'json')).toBe('usage-acme-2031-03-04T050607Z.json');
  });
});

describe('the words for times', () => {
  const words = { locale: 'en-GB', timeZone: 'Asia/Colombo' };

  it("words an hour's start in the viewer's zone, so a UTC hour may start at half past", () => {
    expect(hourLabel('2031-03-04T05:00:00.000Z', words)).toBe('4 Mar, 10:30');
    expect(hourLabel('2031-03-04T23:00:00.000Z', { locale: 'en-GB', timeZone: 'America/New_York' })).toBe(
      '4 Mar, 18:00',
    );
  });

  it('words a day in UTC whatever the zone: the limiter counts UTC days', () => {
    expect(dayLabel('2031-03-04T00:00:00.000Z', words)).toBe('Tue 4 Mar');
    expect(dayLabel('2031-03-04T00:00:00.000Z', { locale: 'en-GB', timeZone: 'America/Los_Angeles' })).toBe(
      'Tue 4 Mar',
    );
  });

  it("words a chart's ticks: the hours' time in the viewer's zone, the days' UTC date", () => {
    const at = Date.parse('2031-03-04T23:00:00.000Z') / 1000;
    expect(axisLabel(at, 'hours', words)).toBe('04:30');
    expect(axisLabel(at, 'days', words)).toBe('4 Mar');
  });

  it('names the zone with its offset at that moment, and UTC as UTC', () => {
    const march = new Date('2031-03-04T05:00:00.000Z');
    expect(zoneLabel(march, words)).toBe('Asia/Colombo (UTC+05:30)');
    expect(zoneLabel(march, { timeZone: 'America/New_York' })).toBe('America/New_York (UTC-05:00)');
    expect(zoneLabel(new Date('2031-07-04T05:00:00.000Z'), { timeZone: 'America/New_York' })).toBe(
      'America/New_York (UTC-04:00)',
    );
    expect(zoneLabel(march, { timeZone: 'UTC' })).toBe('UTC');
    expect(zoneLabel(march, { timeZone: 'Europe/London' })).toBe('Europe/London (UTC)');
  });
});
