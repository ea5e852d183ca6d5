SELECT r.r_reason, count(*) AS n_lines
FROM lineitem l JOIN returns r ON CAST(l.l_orderkey AS STRING) = r.r_orderkey
  AND l.l_linenumber = r.r_linenumber
GROUP BY r.r_reason ORDER BY r.r_reason
