import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { AppError } from '../src/core/errors.js';
import { attachment, guardCell, toCsv, UTF8_BOM } from '../src/modules/reports/csv.js';
import { coverage } from '../src/modules/reports/rollup.service.js';
import { analyticsWindow, reportWindow, utcDays } from '../src/modules/reports/window.js';

describe('report CSV safety', () => {
  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])('prefixes a cell starting like a formula: %j', (cell) => {
    expect(guardCell(cell)).toBe(`'${cell}`);
  });

  it('leaves other cells, numbers and inner formula characters alone', () => {
    expect(guardCell('Data 101')).toBe('Data 101');
    expect(guardCell('a=b')).toBe('a=b');
    expect(guardCell(42)).toBe('42');
    expect(guardCell('')).toBe('');
  });

  it('quotes per RFC 4180 with CRLF line ends and parses back to the same values', () => {
    const records = [
      { name: 'Comma, quote " and\nnewline', count: 3 },
      { name: '=cmd|" /C calc"!A0', count: 0 },
    ];
    const text = toCsv(['name', 'count'], records);
    // The byte order mark first, so Excel reads the file as UTF-8 (issue 46).
    expect(text.startsWith(`${UTF8_BOM}name,count\r\n"Comma, quote "" and\nnewline",3\r\n`)).toBe(true);
    expect(parse(text, { columns: true, bom: true })).toEqual([
      { name: 'Comma, quote " and\nnewline', count: '3' },
      { name: `'=cmd|" /C calc"!A0`, count: '0' },
    ]);
  });

  it.each(['\n=1+1', 'Data\r\n+1', 'a\r-1', 'ok\n@SUM(A1)', 'x\n\ty', 'x\n\rx'])(
    'prefixes a cell when any of its lines starts like a formula: %j',
    (cell) => {
      expect(guardCell(cell)).toBe(`'${cell}`);
    },
  );

  it('quotes every cell holding a CR or LF, so a line break never ends a record', () => {
    const records = [
      { name: '\n=1+1', count: 1 },
      { name: 'a\rb', count: 2 },
      { name: 'plain', count: 3 },
    ];
    const text = toCsv(['name', 'count'], records);
    expect(text).toBe(`${UTF8_BOM}name,count\r\n"'\n=1+1",1\r\n"a\rb",2\r\nplain,3\r\n`);
    expect(parse(text, { columns: true, bom: true, record_delimiter: '\r\n' })).toEqual([
      { name: "'\n=1+1", count: '1' },
      { name: 'a\rb', count: '2' },
      { name: 'plain', count: '3' },
    ]);
  });

  it('names the attachment after the UTC day', () => {
    expect(attachment('analytics', new Date('2026-11-21T23:59:59.999Z'))).toBe(
      'attachment; filename="analytics-2026-11-21.csv"',
    );
  });
});

describe('report windows', () => {
  const now = new Date('2026-11-21T10:00:00.000Z');

  it('normalises bounds to stored UTC form; a bare `to` date includes that day', () => {
    expect(reportWindow({ from: '2026-11-01T02:00:00+02:00', to: '2026-11-20' })).toEqual({
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-11-21T00:00:00.000Z',
    });
    expect(reportWindow({})).toEqual({ from: null, to: null });
  });

  it('defaults analytics to the 30 days before `to`, `to` to now', () => {
    expect(analyticsWindow({}, now)).toEqual({ from: '2026-10-22T10:00:00.000Z', to: now.toISOString() });
    expect(analyticsWindow({ to: '2026-06-30' }, now)).toEqual({
      from: '2026-06-01T00:00:00.000Z',
      to: '2026-07-01T00:00:00.000Z',
    });
  });

  it('refuses from after to and spans over 366 days, allows exactly 366', () => {
    expect(() => reportWindow({ from: '2026-11-02', to: '2026-11-01T23:59:59Z' })).toThrow(AppError);
    expect(() => analyticsWindow({ from: '2026-11-22' }, now)).toThrow(/later than/);
    expect(() => reportWindow({ from: '2023-01-01', to: '2024-01-02' })).toThrow(/366 days/);
    expect(reportWindow({ from: '2024-01-01', to: '2024-12-31' }).to).toBe('2025-01-01T00:00:00.000Z');
  });

  it('holds bounds to the years 0000-9999, so they still order as text', () => {
    expect(reportWindow({ to: '9999-12-31' })).toEqual({ from: null, to: '9999-12-31T23:59:59.999Z' });
    expect(analyticsWindow({ from: '9999-12-30', to: '9999-12-31' }, now)).toEqual({
      from: '9999-12-30T00:00:00.000Z',
      to: '9999-12-31T23:59:59.999Z',
    });
    expect(analyticsWindow({ to: '0000-01-05' }, now)).toEqual({
      from: '0000-01-01T00:00:00.000Z',
      to: '0000-01-06T00:00:00.000Z',
    });
  });

  it('lists every UTC day the window touches, partial edge days included', () => {
    expect(utcDays({ from: '2026-11-01T12:00:00.000Z', to: '2026-11-03T00:00:00.000Z' })).toEqual([
      '2026-11-01',
      '2026-11-02',
    ]);
    expect(utcDays({ from: '2026-11-01T12:00:00.000Z', to: '2026-11-03T00:00:00.001Z' })).toHaveLength(3);
    expect(utcDays({ from: '2026-11-01T12:00:00.000Z', to: '2026-11-01T12:00:00.000Z' })).toEqual([]);
  });
});

describe('rollup coverage of a window', () => {
  it('rolls whole days closed an hour ago; the partial edges and the open days stay raw', () => {
    expect(
      coverage(
        { from: '2026-11-01T12:00:00.000Z', to: '2026-11-21T10:00:00.000Z' },
        new Date('2026-11-21T10:00:00.000Z'),
      ),
    ).toEqual({
      rolled: { firstDay: '2026-11-02', lastDay: '2026-11-20' },
      raw: [
        { from: '2026-11-01T12:00:00.000Z', to: '2026-11-02T00:00:00.000Z' },
        { from: '2026-11-21T00:00:00.000Z', to: '2026-11-21T10:00:00.000Z' },
      ],
    });
  });

  it('keeps yesterday raw within the grace hour after midnight', () => {
    const plan = coverage({ from: null, to: null }, new Date('2026-11-21T00:30:00.000Z'));
    expect(plan).toEqual({
      rolled: { firstDay: null, lastDay: '2026-11-19' },
      raw: [{ from: '2026-11-20T00:00:00.000Z', to: null }],
    });
  });

  it('needs no raw part for a window of whole closed days, and no rollup for a window inside one day', () => {
    const now = new Date('2026-11-21T10:00:00.000Z');
    expect(coverage({ from: '2026-11-01T00:00:00.000Z', to: '2026-11-21T00:00:00.000Z' }, now).raw).toEqual([]);
    const inside = { from: '2026-11-20T01:00:00.000Z', to: '2026-11-20T02:00:00.000Z' };
    expect(coverage(inside, now)).toEqual({ rolled: null, raw: [inside] });
  });
});
