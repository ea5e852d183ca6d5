SELECT o.o_orderstatus, count(*) AS n_lines
FROM lineitem_p l JOIN orders_p o ON l.l_orderkey = o.o_orderkey
WHERE o.o_orderdate >= date '1995-01-01'
GROUP BY o.o_orderstatus ORDER BY o.o_orderstatus
