CREATE TABLE nation_revenue USING parquet AS
SELECT n.n_name, sum(l.l_extendedprice * (1 - l.l_discount)) AS revenue
FROM nation n
  JOIN customer c ON c.c_nationkey = n.n_nationkey
  JOIN orders o ON o.o_custkey = c.c_custkey
  JOIN lineitem l ON l.l_orderkey = o.o_orderkey
GROUP BY n.n_name
