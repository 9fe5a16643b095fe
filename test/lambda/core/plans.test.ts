import {
  isPlanName,
  PLAN_NAMES,
  PLANS,
  planCapacity,
  planLimits,
  planNumbersProblems,
} from '../../../lambda/core/plans';

describe('the plan table', () => {
  it("holds the spec's plans, cheapest first, each allowing more than the one before", () => {
    expect(PLAN_NAMES).toEqual(['free', 'pro', 'business', 'enterprise']);
    const capacities = PLAN_NAMES.map(planCapacity);
    for (const { perMinute, perDay } of capacities) {
      expect(Number.isInteger(perMinute) && perMinute > 0).toBe(true);
      expect(Number.isInteger(perDay) && perDay >= perMinute).toBe(true);
    }
    const perMinute = capacities.map((capacity) => capacity.perMinute);
    const perDay = capacities.map((capacity) => capacity.perDay);
    expect(perMinute).toEqual([...new Set(perMinute)].sort((a, b) => a - b));
    expect(perDay).toEqual([...new Set(perDay)].sort((a, b) => a - b));
  });

  it("gives a standard plan's numbers from the table, and an agreed plan's only as agreed", () => {
    expect(planLimits('free')).toBe(PLANS.free.limits);
    expect(planLimits('business')).toBe(PLANS.business.limits);
    expect(planLimits('enterprise')).toBeUndefined();
    expect(planLimits('enterprise', { perMinute: 7, perDay: 70 })).toEqual({ perMinute: 7, perDay: 70 });
  });

  it('knows its names and nothing else', () => {
    for (const name of PLAN_NAMES) expect(isPlanName(name)).toBe(true);
    for (const name of ['Free', 'enterprise:acme', 'toString', '__proto__', ''])
      expect(isPlanName(name)).toBe(false);
  });

  it('sizes the gateway from an agreed plan’s ceiling', () => {
    expect(planCapacity('enterprise')).toEqual(PLANS.enterprise.ceiling);
    expect(planCapacity('pro')).toEqual(PLANS.pro.limits);
  });
});

describe('planNumbersProblems', () => {
  const { ceiling } = PLANS.enterprise;

  it('takes no numbers on a standard plan', () => {
    expect(planNumbersProblems('pro', undefined)).toEqual([]);
    expect(planNumbersProblems('pro', { perMinute: 10 })).toEqual([expect.stringMatching(/fixed numbers/)]);
  });

  it('needs both numbers on an agreed plan', () => {
    expect(planNumbersProblems('enterprise', { perMinute: 10 })).toEqual([expect.stringMatching(/per-day/)]);
  });

  it('accepts agreed numbers up to the ceiling', () => {
    expect(planNumbersProblems('enterprise', ceiling)).toEqual([]);
    expect(planNumbersProblems('enterprise', { perMinute: 1, perDay: 1 })).toEqual([]);
  });

  it.each([
    [{ perMinute: ceiling.perMinute + 1, perDay: ceiling.perDay }, /Per-minute/],
    [{ perMinute: 0, perDay: 10 }, /Per-minute/],
    [{ perMinute: 1.5, perDay: 10 }, /Per-minute/],
    [{ perMinute: 100, perDay: 99 }, /Per-day/],
    [{ perMinute: 100, perDay: ceiling.perDay + 1 }, /Per-day/],
  ])('refuses %j', (numbers, message) => {
    expect(planNumbersProblems('enterprise', numbers)).toEqual([expect.stringMatching(message)]);
  });
});
