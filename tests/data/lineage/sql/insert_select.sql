INSERT INTO cust_revenue
SELECT c.c_custkey, c.c_mktsegment, sum(o.o_totalprice) AS revenue
FROM customer c JOIN orders o ON c.c_custkey = o.o_custkey
GROUP BY c.c_custkey, c.c_mktsegment
