SELECT p.p_brand, count(*) AS n_lines
FROM lineitem l JOIN part p ON CAST(l.l_partkey AS INT) = p.p_partkey
GROUP BY p.p_brand ORDER BY p.p_brand
