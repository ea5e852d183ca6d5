SELECT o.o_orderpriority, count(*) AS n_lines, sum(l.l_extendedprice) AS price
FROM orders o JOIN lineitem l ON o.o_orderkey = l.l_orderkey
WHERE l.l_shipmode IN ('AIR', 'MAIL')
GROUP BY o.o_orderpriority ORDER BY o.o_orderpriority
