SELECT c.c_mktsegment, count(*) AS n_orders, sum(o.o_totalprice) AS total
FROM orders_p o JOIN customer c ON o.o_custkey = c.c_custkey
GROUP BY c.c_mktsegment ORDER BY c.c_mktsegment
