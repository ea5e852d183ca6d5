SELECT cn.n_name, count(*) AS n_orders
FROM cust_nation cn JOIN orders o ON cn.c_custkey = o.o_custkey
GROUP BY cn.n_name ORDER BY cn.n_name
