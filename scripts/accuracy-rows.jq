# scripts/accuracy-rows.jq - the Markdown rows of docs/accuracy.md from one
# `unperturb validate` JSON (docs/validate.md); scripts/accuracy.sh runs it as
#   jq -r --arg n EXAMPLE -f scripts/accuracy-rows.jq FILE.json
# "width" is (Ta upper - Ta lower) / median T; "inside": the median T lies in
# [Ta lower - s, Ta upper + s], s = max - min of the uninstrumented runs.
# The last column says whether the row's traced runs were the same execution
# as the reference run (records per region within 1%): if not, it names the
# region that differs most, reference count -> this row's count, from the
# traced run where it differs most.  Such rows are left out of the targets.
def r3: . * 1000 | round / 1000;
def pct: . * 1000 | round / 10;
def execution:
    if .different_execution then
        (.count_differences | max_by(.regions[0].relative // infinite | fabs) | .regions[0]) as $d
        | "**no**: \($d.region) \($d.reference_count) → \($d.count)"
          + (if $d.relative == null then " (not in the reference)" else " (\(if $d.relative > 0 then "+" else "" end)\($d.relative | pct)%)" end)
    else "yes" end;
.rows[]
| "| \($n) | \(.extra_ns) | \(.T_s|r3) (\(.T_median_s|r3), \(.T_max_s|r3)) | \(.Tm_s|r3) (\(.Tm_median_s|r3), \(.Tm_max_s|r3)) | \(.delta_m|pct)% | \(.Ta_lower_s|r3) | \(.Ta_upper_s|r3) | \(.Ta_network_s|r3) | \(.Ta_network_runs_min_s|r3) (\(.Ta_network_runs_median_s|r3), \(.Ta_network_runs_max_s|r3)) | \((.Ta_network_s-.T_s)/.T_s|pct)% | \(.T_noise|pct)% | \(.bounds_width|pct)% | \(if .T_inside then "yes" else "no" end) | \(execution) |"
