SELECT c.c_nationkey, count(*) AS n_customers
FROM customer c
GROUP BY c.c_nationkey
HAVING c.c_nationkey IN (
  SELECT s.s_nationkey FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey
  WHERE n.n_regionkey <= 2)
ORDER BY c.c_nationkey
