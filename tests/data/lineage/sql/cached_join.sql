SELECT b.o_orderdate, count(*) AS n_lines
FROM big_orders b JOIN lineitem l ON b.o_orderkey = l.l_orderkey
GROUP BY b.o_orderdate ORDER BY n_lines DESC, b.o_orderdate LIMIT 10
