import { windowsAt } from '../../../lambda/core/rate-limit';

const NOON = Date.UTC(2026, 10, 22, 12, 0, 15); // 15 s into a minute

describe('windows', () => {
  it('align to UTC minutes and days', () => {
    const windows = windowsAt(NOON);
    expect(windows.minuteResetMs).toBe(Date.UTC(2026, 10, 22, 12, 1, 0));
    expect(windows.day).toBe('2026-11-22');
    expect(windows.dayResetMs).toBe(Date.UTC(2026, 10, 23));
  });
});
