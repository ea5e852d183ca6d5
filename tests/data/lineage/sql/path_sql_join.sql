SELECT c.c_name, count(*) AS n_orders
FROM parquet.`/tmp/lakeaudit-lineage/warehouse/customer` c JOIN orders o ON c.c_custkey = o.o_custkey
WHERE c.c_acctbal > 5000
GROUP BY c.c_name ORDER BY n_orders DESC, c.c_name LIMIT 10
