SELECT c.c_mktsegment, count(*) AS n_orders
FROM orders o JOIN customer c ON norm_key(o.o_custkey) = c.c_custkey
GROUP BY c.c_mktsegment ORDER BY c.c_mktsegment
