SELECT c.c_mktsegment, count(*) AS n_orders
FROM customer c JOIN orders o ON CAST(c.c_custkey AS BIGINT) = o.o_custkey
GROUP BY c.c_mktsegment ORDER BY c.c_mktsegment
