SELECT /*+ MERGE(o, l) */ o.o_orderstatus, count(*) AS n_lines
FROM orders_b o JOIN lineitem_b l ON o.o_orderkey = l.l_orderkey
GROUP BY o.o_orderstatus ORDER BY o.o_orderstatus
