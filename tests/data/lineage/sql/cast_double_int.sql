SELECT p.p_type, count(*) AS n_lines
FROM lineitem l JOIN part p ON CAST(l.l_quantity AS INT) = p.p_size
GROUP BY p.p_type ORDER BY p.p_type
