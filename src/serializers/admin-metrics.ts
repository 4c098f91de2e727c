import type { Cohort, Dimension, Measure } from "../admin/metrics.ts";

// Admin::Measure, Admin::Dimension and Admin::Cohort (entities-admin.md; Mastodon's
// REST::Admin::MeasureSerializer): counts are strings; human_value only for unit-bearing
// measures, previous_total only for measures whose total is limited to the period.

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
