SELECT p.p_brand, o.o_orderstatus, count(*) AS n
FROM (SELECT op_orderkey, pk FROM order_parts LATERAL VIEW explode(op_partkeys) t AS pk) e
  JOIN part p ON e.pk = p.p_partkey
  JOIN orders o ON e.op_orderkey = o.o_orderkey
GROUP BY p.p_brand, o.o_orderstatus ORDER BY p.p_brand, o.o_orderstatus
