
// Admin::Measure, Admin::Dimension and Admin::Cohort (entities-admin.md; Mastodon's
// REST::Admin::MeasureSerializer): counts are strings; human_value only for unit-bearing
// measures, previous_total only for measures whose total is limited to the period.

// What admin/metrics.ts computes (described here: serializers sit below admin/).
interface Measure {
  key: string;
  unit: string | null;
  total: number;
  previousTotal?: number;
  humanValue?: string;
  data: { date: string; value: string }[];
}
interface Dimension {
  key: string;
  data: { key: string; human_key: string; value: string; unit?: string; human_value?: string }[];
}
interface Cohort {
  period: string;
  frequency: "day" | "month";
  data: { date: string; rate: number; value: string }[];
}

export interface ApiAdminMeasure {
  key: string;
  unit: string | null;
  total: string;
  human_value?: string;
  previous_total?: string;
  data: { date: string; value: string }[];
}

export function toApiAdminMeasure(m: Measure): ApiAdminMeasure {
  return {
    key: m.key,
    unit: m.unit,
    total: String(m.total),
    ...(m.humanValue !== undefined ? { human_value: m.humanValue } : {}),
    ...(m.previousTotal !== undefined ? { previous_total: String(m.previousTotal) } : {}),
    data: m.data,
  };
}

export const toApiAdminDimension = (d: Dimension): Dimension => ({ key: d.key, data: d.data });

export const toApiAdminCohort = (c: Cohort): Cohort => ({ period: c.period, frequency: c.frequency, data: c.data });
