SELECT c.c_mktsegment, count(*) AS n_customers
FROM customer c
GROUP BY c.c_mktsegment
HAVING count(*) > (
  SELECT count(*) / 10 FROM orders o JOIN customer c2 ON o.o_custkey = c2.c_custkey
  WHERE o.o_orderstatus = 'F')
ORDER BY c.c_mktsegment
