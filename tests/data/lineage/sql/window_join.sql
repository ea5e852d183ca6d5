WITH w AS (
  SELECT l_orderkey, l_partkey, l_extendedprice,
         row_number() OVER (PARTITION BY l_orderkey ORDER BY l_extendedprice DESC) AS rn
  FROM lineitem)
SELECT o.o_orderpriority, count(*) AS n, sum(w.l_extendedprice) AS top_price
FROM w JOIN orders o ON w.l_orderkey = o.o_orderkey
WHERE w.rn = 1
GROUP BY o.o_orderpriority ORDER BY o.o_orderpriority
