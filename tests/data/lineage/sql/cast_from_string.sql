SELECT o.o_orderpriority, count(*) AS n_returns
FROM returns r JOIN orders o ON CAST(r.r_orderkey AS BIGINT) = o.o_orderkey
GROUP BY o.o_orderpriority ORDER BY o.o_orderpriority
