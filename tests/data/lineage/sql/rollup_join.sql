WITH r AS (
  SELECT c_nationkey, c_mktsegment, sum(c_acctbal) AS bal
  FROM customer GROUP BY ROLLUP (c_nationkey, c_mktsegment))
SELECT n.n_name, r.c_mktsegment, r.bal
FROM r JOIN nation n ON r.c_nationkey = n.n_nationkey
ORDER BY n.n_name, r.c_mktsegment
